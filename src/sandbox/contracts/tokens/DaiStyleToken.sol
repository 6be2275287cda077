// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SignatureChecker} from "../lib/SignatureChecker.sol";
import {SandboxEip712Token, SandboxMintable} from "./SandboxErc20Core.sol";

/// @notice ERC-20 with DAI's permit: the holder signs a nonce and a yes/no, and the allowance becomes infinite or 0.
///         As on mainnet DAI, the domain is told only through DOMAIN_SEPARATOR(), name() and version(): no
///         eip712Domain().
contract DaiStyleToken is SandboxEip712Token, SandboxMintable {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address holder,address spender,uint256 nonce,uint256 expiry,bool allowed)");

    error PermitExpired(uint256 expiry);
    error InvalidPermitSignature();
    error InvalidNonce(uint256 expected, uint256 received);

    mapping(address => uint256) public nonces;

    function initialize(
        string calldata name_,
        string calldata symbol_,
        uint8 decimals_,
        string calldata version_,
        address minter_
    ) external {
        _initializeToken(name_, symbol_, decimals_);
        version = version_;
        minter = minter_;
    }

    /// @notice `expiry == 0` never expires. The nonce is passed explicitly and must be the holder's current one.
    function permit(
        address holder,
        address spender,
        uint256 nonce,
        uint256 expiry,
        bool allowed,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        if (expiry != 0 && block.timestamp > expiry) revert PermitExpired(expiry);
        uint256 expected = nonces[holder];
        if (nonce != expected) revert InvalidNonce(expected, nonce);
        bytes32 digest =
            _hashTypedData(keccak256(abi.encode(PERMIT_TYPEHASH, holder, spender, nonce, expiry, allowed)));
        address signer = SignatureChecker.recover(digest, abi.encodePacked(r, s, v));
        if (signer == address(0) || signer != holder) revert InvalidPermitSignature();
        nonces[holder] = expected + 1;
        _approve(holder, spender, allowed ? type(uint256).max : 0);
    }
}
