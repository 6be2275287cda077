// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SignatureChecker} from "../lib/SignatureChecker.sol";

/// @notice Minimal smart-contract wallet for tests: one EOA signer validates EIP-1271 signatures and sends calls.
contract Eip1271Wallet {
    bytes4 private constant INVALID_SIGNATURE = 0xffffffff;

    error AlreadyInitialized();
    error NotSigner(address caller);

    bool private _initialized;
    address public signer;

    function initialize(address signer_) external {
        if (_initialized) revert AlreadyInitialized();
        _initialized = true;
        signer = signer_;
    }

    receive() external payable {}

    /// @notice 0x1626ba7e when `signer` signed `hash` (65-byte or 64-byte compact signature), else 0xffffffff.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65 && signature.length != 64) return INVALID_SIGNATURE;
        address recovered = SignatureChecker.recover(hash, signature);
        return recovered != address(0) && recovered == signer ? SignatureChecker.EIP1271_MAGIC : INVALID_SIGNATURE;
    }

    /// @notice Calls `to` on the signer's behalf (e.g. to approve a token); bubbles up the callee's revert data.
    function execute(address to, uint256 value, bytes calldata data) external returns (bytes memory) {
        if (msg.sender != signer) revert NotSigner(msg.sender);
        (bool ok, bytes memory result) = to.call{value: value}(data);
        if (!ok) {
            assembly {
                revert(add(result, 0x20), mload(result))
            }
        }
        return result;
    }
}
