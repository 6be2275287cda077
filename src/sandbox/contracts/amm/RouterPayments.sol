// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeTransfer} from "../lib/SafeTransfer.sol";
import {Permit2} from "../Permit2.sol";

/// @notice What the sandbox Market router does around a swap: pulls the source from the user (a plain allowance to
///         the router, or Permit2 in its place) and pays the partner options of POST /transactions: the partner fee
///         or the collected positive slippage (surplus), straight to the partner or into the router's fee vault.
/// @dev Amounts follow the service document: `partnerFeeBps` at most 200 (2 %), surplus capped at 1 % of the quoted
///      amount unless the cap is off. A fee excludes surplus collection (the service's fee-sharing rule: a partner
///      takes either). The native coin is keyed as the 0xEeee… placeholder and held by the router as ETH.
abstract contract RouterPayments {
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;
    uint256 internal constant BPS = 10_000;
    uint256 internal constant MAX_PARTNER_FEE_BPS = 200;
    /// @dev isCapSurplus caps the collected surplus at 1 % (section 8 of the service document).
    uint256 internal constant SURPLUS_CAP_BPS = 100;

    /// @dev SwapOptions.flags.
    uint256 internal constant TAKE_SURPLUS = 1;
    uint256 internal constant CAP_SURPLUS = 2;
    uint256 internal constant DIRECT_FEE_TRANSFER = 4;
    /// @dev Fee and surplus are in the source token (a BUY); only swapOnAugustusRFQTryBatchFill reads it.
    uint256 internal constant EXACT_OUT = 8;

    /// @notice The partner options and the permit of a swap built with them.
    struct SwapOptions {
        /// Receives the fee or the collected surplus; 0 when neither is taken.
        address partner;
        /// Basis points of the variable side (SELL: the output; BUY: the source spent), at most 200.
        uint256 partnerFeeBps;
        /// The route's quote of the variable side as the router sees it (SELL: output; BUY: source): surplus is what
        /// the swap does better than this.
        uint256 quotedAmount;
        /// TAKE_SURPLUS | CAP_SURPLUS | DIRECT_FEE_TRANSFER | EXACT_OUT.
        uint256 flags;
        /// Empty (allowance to the router) or a Permit2 payload: 1 byte (0x01, an existing Permit2 allowance),
        /// 96 bytes (signature transfer: nonce, 64-byte signature) or 192 bytes (allowance permit: amount, nonce,
        /// expiration, sigDeadline, 64-byte signature), as the Delta permit field encodes them.
        bytes permit;
    }

    event PartnerPaid(address indexed partner, address indexed token, uint256 fee, uint256 surplus, bool direct);
    event PartnerFeesWithdrawn(address indexed partner, address indexed token, uint256 amount, address recipient);

    /// @dev partner => token (NATIVE for the coin) => amount accrued and not yet withdrawn.
    mapping(address => mapping(address => uint256)) private _partnerFees;

    /// @notice Fees and surplus accrued to `partner` in `token` (the fee vault; isDirectFeeTransfer bypasses it).
    function partnerFees(address partner, address token) external view returns (uint256) {
        return _partnerFees[partner][token];
    }

    /// @notice Pays the caller's accrued `token` (the 0xEeee… placeholder for the coin) to `recipient` (0 = the caller).
    function withdrawPartnerFees(address token, address recipient) external returns (uint256 amount) {
        amount = _partnerFees[msg.sender][token];
        require(amount > 0, "NOTHING_TO_WITHDRAW");
        _partnerFees[msg.sender][token] = 0;
        if (recipient == address(0)) recipient = msg.sender;
        _deliver(token, recipient, amount);
        emit PartnerFeesWithdrawn(msg.sender, token, amount, recipient);
    }

    function _checkOptions(SwapOptions calldata options) internal pure {
        require(options.partnerFeeBps <= MAX_PARTNER_FEE_BPS, "INVALID_PARTNER_FEE");
        bool charges = options.partnerFeeBps > 0 || options.flags & TAKE_SURPLUS != 0;
        require(!charges || options.partner != address(0), "INVALID_PARTNER");
    }

    /// @dev SELL: the fee on the output, or without a fee the output above the quote when the surplus is taken.
    function _sellShares(SwapOptions calldata options, uint256 output)
        internal
        pure
        returns (uint256 fee, uint256 surplus)
    {
        if (options.partnerFeeBps > 0) return ((output * options.partnerFeeBps) / BPS, 0);
        if (options.flags & TAKE_SURPLUS != 0 && output > options.quotedAmount) {
            surplus = _capSurplus(options, output - options.quotedAmount);
        }
    }

    /// @dev BUY: the fee on the source spent, or without a fee the source saved below the quote when it is taken.
    function _buyShares(SwapOptions calldata options, uint256 spent) internal pure returns (uint256 fee, uint256 surplus) {
        if (options.partnerFeeBps > 0) return ((spent * options.partnerFeeBps) / BPS, 0);
        if (options.flags & TAKE_SURPLUS != 0 && options.quotedAmount > spent) {
            surplus = _capSurplus(options, options.quotedAmount - spent);
        }
    }

    function _capSurplus(SwapOptions calldata options, uint256 surplus) private pure returns (uint256) {
        if (options.flags & CAP_SURPLUS == 0) return surplus;
        uint256 cap = (options.quotedAmount * SURPLUS_CAP_BPS) / BPS;
        return surplus < cap ? surplus : cap;
    }

    /// @dev Pays fee + surplus (held by the router) to the partner, or accrues it in the vault.
    function _payPartner(SwapOptions calldata options, address token, uint256 fee, uint256 surplus) internal {
        if (fee + surplus == 0) return;
        bool direct = options.flags & DIRECT_FEE_TRANSFER != 0;
        if (direct) _deliver(token, options.partner, fee + surplus);
        else _partnerFees[options.partner][token] += fee + surplus;
        emit PartnerPaid(options.partner, token, fee, surplus, direct);
    }

    /// @dev Sends what the router holds: ETH for the NATIVE placeholder, else the ERC-20.
    function _deliver(address token, address to, uint256 amount) internal {
        if (token == NATIVE) SafeTransfer.safeTransferNative(to, amount);
        else SafeTransfer.safeTransfer(token, to, amount);
    }

    /// @dev Moves `amount` of `token` from `from` to `to`: on the plain allowance to this router when `permit` is
    ///      empty, else through Permit2. A 96-byte signature transfer was signed for `permitted` (at least `amount`)
    ///      and `deadline`, with this router as spender. Any refusal is the real router's TRANSFER_FROM_FAILED.
    function _pull(
        address token,
        address from,
        address to,
        uint256 amount,
        uint256 permitted,
        uint256 deadline,
        bytes calldata permit
    ) internal {
        bool pulled;
        if (permit.length == 0) {
            pulled = SafeTransfer.tryTransferFrom(token, from, to, amount);
        } else if (permit.length == 96) {
            pulled = _permit2SignatureTransfer(token, from, to, amount, permitted, deadline, permit);
        } else {
            require(permit.length == 192 || (permit.length == 1 && permit[0] == 0x01), "INVALID_PERMIT");
            if (permit.length == 192) _permit2Allowance(token, from, permit);
            pulled = _permit2TransferFrom(token, from, to, amount);
        }
        require(pulled, "TransferHelper: TRANSFER_FROM_FAILED");
    }

    function _permit2TransferFrom(address token, address from, address to, uint256 amount) private returns (bool) {
        if (amount > type(uint160).max || PERMIT2.code.length == 0) return false;
        try Permit2(PERMIT2).transferFrom(from, to, uint160(amount), token) {
            return true;
        } catch {
            return false;
        }
    }

    function _permit2SignatureTransfer(
        address token,
        address from,
        address to,
        uint256 amount,
        uint256 permitted,
        uint256 deadline,
        bytes calldata permit
    ) private returns (bool) {
        if (PERMIT2.code.length == 0) return false;
        Permit2.PermitTransferFrom memory signed =
            Permit2.PermitTransferFrom(Permit2.TokenPermissions(token, permitted), uint256(bytes32(permit[0:32])), deadline);
        try Permit2(PERMIT2).permitTransferFrom(signed, Permit2.SignatureTransferDetails(to, amount), from, permit[32:96]) {
            return true;
        } catch {
            return false;
        }
    }

    /// @dev Submits the signed Permit2 allowance for this router. A refusal is ignored: a permit already used by an
    ///      earlier swap leaves its allowance in place, and the transfer that follows decides.
    function _permit2Allowance(address token, address owner, bytes calldata permit) private {
        if (PERMIT2.code.length == 0) return;
        (uint256 amount, uint256 nonce, uint256 expiration, uint256 sigDeadline) =
            abi.decode(permit[0:128], (uint256, uint256, uint256, uint256));
        // Out-of-range words are truncated: the signature then does not match and Permit2 refuses.
        Permit2.PermitSingle memory single = Permit2.PermitSingle(
            Permit2.PermitDetails(token, uint160(amount), uint48(expiration), uint48(nonce)), address(this), sigDeadline
        );
        try Permit2(PERMIT2).permit(owner, single, permit[128:192]) {} catch {}
    }
}
