// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeTransfer} from "../lib/SafeTransfer.sol";

/// @notice The part of the Permit2 ABI that Delta calls.
interface IDeltaPermit2 {
    struct PermitDetails {
        address token;
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    struct PermitSingle {
        PermitDetails details;
        address spender;
        uint256 sigDeadline;
    }

    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permit(address owner, PermitSingle calldata permitSingle, bytes calldata signature) external;

    function transferFrom(address from, address to, uint160 amount, address token) external;

    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external;
}

/// @notice How a Delta order's `permit` bytes are used, by their length (protocol-facts):
///         0 plain allowance, 1 existing Permit2 allowance, 96 Permit2 signature transfer, 192 Permit2 allowance
///         permit, 224 EIP-2612 permit, 256 DAI permit.
library DeltaPermits {
    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    uint256 internal constant PERMIT2_APPROVED = 1;
    uint256 internal constant PERMIT2_TRANSFER = 96;
    uint256 internal constant PERMIT2_ALLOWANCE = 192;
    uint256 internal constant EIP2612 = 224;
    uint256 internal constant DAI = 256;

    /// @dev What a Permit2 signature transfer needs besides the permit bytes.
    struct SignatureTransfer {
        address token;
        address owner;
        /// The amount the owner signed (the order's srcAmount); the transfer may request less.
        uint256 permitted;
        uint256 deadline;
        address to;
        uint256 amount;
    }

    function isKnownLength(uint256 length) internal pure returns (bool) {
        return length == 0 || length == PERMIT2_APPROVED || length == PERMIT2_TRANSFER || length == PERMIT2_ALLOWANCE
            || length == EIP2612 || length == DAI;
    }

    /// @dev True when the pull goes through a Permit2 allowance (the 1- and 192-byte permits).
    function usesPermit2Allowance(uint256 length) internal pure returns (bool) {
        return length == PERMIT2_APPROVED || length == PERMIT2_ALLOWANCE;
    }

    /// @notice Submits an allowance-granting permit (192, 224, 256 bytes); other lengths do nothing.
    /// @dev Failures are ignored: a permit already consumed, or front-run by someone who submitted it first, leaves
    ///      the allowance in place, and the pull that follows decides whether the order can settle.
    function tryApply(address token, address owner, bytes calldata permit) internal {
        if (token.code.length == 0) return;
        if (permit.length == PERMIT2_ALLOWANCE) {
            _tryPermit2Allowance(token, owner, permit);
        } else if (permit.length == EIP2612 || permit.length == DAI) {
            // The words are the permit's own arguments (owner/holder first): forward them unchanged and let the token
            // judge them. EIP-2612 permit(address,address,uint256,uint256,uint8,bytes32,bytes32) = 0xd505accf,
            // DAI permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32) = 0x8fcbaf0c.
            bytes4 selector = permit.length == EIP2612 ? bytes4(0xd505accf) : bytes4(0x8fcbaf0c);
            (bool accepted,) = token.call(bytes.concat(selector, permit));
            accepted; // a refused permit is not an error here (see above)
        }
    }

    /// @notice Pulls through an existing Permit2 allowance; reverts with SafeTransfer.TransferFailed when Permit2 refuses.
    function permit2TransferFrom(address token, address from, address to, uint256 amount) internal {
        if (PERMIT2.code.length == 0 || amount > type(uint160).max) {
            revert SafeTransfer.TransferFailed(token, from, to, amount);
        }
        try IDeltaPermit2(PERMIT2).transferFrom(from, to, uint160(amount), token) {}
        catch {
            revert SafeTransfer.TransferFailed(token, from, to, amount);
        }
    }

    /// @notice 96-byte permit: Permit2 nonce, then the 64-byte compact signature over
    ///         PermitTransferFrom{permitted: {token, permitted}, spender: this contract, nonce, deadline}.
    function permit2SignatureTransfer(SignatureTransfer memory transfer, bytes calldata permit) internal {
        if (PERMIT2.code.length == 0) {
            revert SafeTransfer.TransferFailed(transfer.token, transfer.owner, transfer.to, transfer.amount);
        }
        IDeltaPermit2.PermitTransferFrom memory signed = IDeltaPermit2.PermitTransferFrom(
            IDeltaPermit2.TokenPermissions(transfer.token, transfer.permitted), uint256(bytes32(permit[0:32])), transfer.deadline
        );
        IDeltaPermit2.SignatureTransferDetails memory details =
            IDeltaPermit2.SignatureTransferDetails(transfer.to, transfer.amount);
        try IDeltaPermit2(PERMIT2).permitTransferFrom(signed, details, transfer.owner, permit[32:96]) {}
        catch {
            revert SafeTransfer.TransferFailed(transfer.token, transfer.owner, transfer.to, transfer.amount);
        }
    }

    /// @dev 192 bytes: words amount, nonce, expiration, sigDeadline, then the 64-byte signature; spender = this contract.
    function _tryPermit2Allowance(address token, address owner, bytes calldata permit) private {
        if (PERMIT2.code.length == 0) return;
        (uint256 amount, uint256 nonce, uint256 expiration, uint256 sigDeadline) =
            abi.decode(permit[0:128], (uint256, uint256, uint256, uint256));
        // Out-of-range words are truncated here; the signature then does not match and the permit is skipped.
        IDeltaPermit2.PermitSingle memory single = IDeltaPermit2.PermitSingle(
            IDeltaPermit2.PermitDetails(token, uint160(amount), uint48(expiration), uint48(nonce)), address(this), sigDeadline
        );
        try IDeltaPermit2(PERMIT2).permit(owner, single, permit[128:192]) {} catch {}
    }
}
