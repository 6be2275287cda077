// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Signature checks shared by the sandbox contracts: 65-byte (r, s, v), 64-byte ERC-2098 compact (r, vs)
///         for EOAs, and EIP-1271 for contract signers.
library SignatureChecker {
    bytes4 internal constant EIP1271_MAGIC = 0x1626ba7e;
    uint256 private constant S_MAX = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    error InvalidSignatureLength(uint256 length);

    /// @dev Recovers an EOA signer; returns address(0) for a malleable or unrecoverable signature.
    function recover(bytes32 digest, bytes memory signature) internal pure returns (address) {
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            assembly {
                r := mload(add(signature, 0x20))
                s := mload(add(signature, 0x40))
                v := byte(0, mload(add(signature, 0x60)))
            }
            if (v < 27) v += 27;
        } else if (signature.length == 64) {
            bytes32 vs;
            assembly {
                r := mload(add(signature, 0x20))
                vs := mload(add(signature, 0x40))
            }
            s = vs & bytes32(0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff);
            v = uint8(uint256(vs >> 255)) + 27;
        } else {
            revert InvalidSignatureLength(signature.length);
        }
        if (uint256(s) > S_MAX || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }

    /// @dev True when `signer` signed `digest`: EIP-1271 for contracts, ecrecover otherwise.
    function isValid(address signer, bytes32 digest, bytes memory signature) internal view returns (bool) {
        if (signer == address(0)) return false;
        if (signer.code.length > 0) {
            (bool ok, bytes memory result) =
                signer.staticcall(abi.encodeWithSelector(EIP1271_MAGIC, digest, signature));
            return ok && result.length >= 32 && abi.decode(result, (bytes4)) == EIP1271_MAGIC;
        }
        return recover(digest, signature) == signer;
    }
}
