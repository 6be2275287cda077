// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SignatureChecker} from "../lib/SignatureChecker.sol";
import {SandboxEip5267Token, SandboxEip712Token, SandboxMintable} from "./SandboxErc20Core.sol";

/// @notice ERC-20 with EIP-2612 permit; how it tells its domain is left to the token built on it.
abstract contract SandboxEip2612Token is SandboxEip712Token, SandboxMintable {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    error PermitExpired(uint256 deadline);
    error InvalidPermitSignature();

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

    /// @notice EIP-2612. A replayed signature fails as InvalidPermitSignature, since the nonce is part of the digest.
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        if (block.timestamp > deadline) revert PermitExpired(deadline);
        bytes32 digest =
            _hashTypedData(keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, nonces[owner]++, deadline)));
        // recover() rejects high-s and bad v values and returns address(0) for them.
        address signer = SignatureChecker.recover(digest, abi.encodePacked(r, s, v));
        if (signer == address(0) || signer != owner) revert InvalidPermitSignature();
        _approve(owner, spender, value);
    }
}

/// @notice ERC-20 with EIP-2612 permit and EIP-5267 domain discovery, the default sandbox token.
contract SandboxToken is SandboxEip2612Token, SandboxEip5267Token {}
