// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeTransfer} from "../lib/SafeTransfer.sol";
import {RfqSettlement} from "../Rfq.sol";
import {WrappedNative} from "../tokens/WrappedNative.sol";
import {ConstantProductPool} from "./ConstantProductPool.sol";
import {RouterPayments} from "./RouterPayments.sol";

/// @notice Stands in for the Market router v6.2 (0x6a000f20005980200259b80c5102003040001068): swaps along a path of
///         ConstantProductPools. It is its own token-transfer proxy, so users approve the router itself.
/// @dev Revert texts follow what clients of the real router meet: "TransferHelper: TRANSFER_FROM_FAILED" for a
///      missing allowance or balance, "INSUFFICIENT_OUTPUT" for slippage on sells and buys alike.
///      Market makers' firm quotes (RFQ orders whose `taker` is this router) are filled through the chain's RFQ
///      settlement contract by swapOnAugustusRFQTryBatchFill.
///      Each swap has a second form that takes SwapOptions (RouterPayments): the partner fee or surplus of the build
///      and a Permit2 payload. The plain form charges nothing and pulls on the allowance to the router.
contract MarketRouter is RouterPayments {
    event Swapped(
        address indexed user,
        address indexed srcToken,
        address indexed destToken,
        uint256 srcAmount,
        uint256 destAmount,
        address beneficiary
    );

    error AlreadyInitialized();

    /// @dev The amounts and recipient of one swap, kept together so the options forms stay within the stack.
    struct Swap {
        address srcToken;
        address destToken;
        /// SELL: the exact source; BUY: the most source the user pays (fee and surplus included).
        uint256 srcAmount;
        /// SELL: the least the beneficiary receives (after fee and surplus); BUY: the exact output.
        uint256 destAmount;
        address beneficiary;
        uint256 deadline;
    }

    bool private _initialized;
    address public wrappedNative;
    /// @notice The chain's RFQ settlement contract, which fills market makers' firm quotes.
    address public rfqSettlement;

    function initialize(address wrappedNative_) external {
        if (_initialized) revert AlreadyInitialized();
        _initialized = true;
        wrappedNative = wrappedNative_;
    }

    /// @notice Sets the RFQ settlement contract once (the chain fixture does it right after placing the router).
    function setRfqSettlement(address rfqSettlement_) external {
        if (rfqSettlement != address(0)) revert AlreadyInitialized();
        rfqSettlement = rfqSettlement_;
    }

    /// @dev Only the wrapped native contract sends the coin here (on unwrap); anything else would be stranded.
    receive() external payable {
        require(msg.sender == wrappedNative, "ONLY_WRAPPED_NATIVE");
    }

    /// @notice Sells exactly `srcAmount`. `beneficiary` 0 means the caller; `deadline` 0 means none.
    function swapExactAmountIn(
        address srcToken,
        address destToken,
        uint256 srcAmount,
        uint256 minDestAmount,
        address[] calldata pools,
        address beneficiary,
        uint256 deadline
    ) external payable returns (uint256 destAmount) {
        _checkDeadline(deadline);
        address[] memory path = _path(srcToken, destToken, pools);
        if (beneficiary == address(0)) beneficiary = msg.sender;

        if (srcToken == NATIVE) require(msg.value == srcAmount, "INVALID_MSG_VALUE");
        else require(msg.value == 0, "INVALID_MSG_VALUE");
        _pullInto(srcToken, srcAmount, pools[0]);

        address recipient = destToken == NATIVE ? address(this) : beneficiary;
        destAmount = _swapAlong(path, pools, new uint256[](pools.length), recipient);
        require(destAmount >= minDestAmount, "INSUFFICIENT_OUTPUT");
        if (destToken == NATIVE) _sendNative(beneficiary, destAmount);
        emit Swapped(msg.sender, srcToken, destToken, srcAmount, destAmount, beneficiary);
    }

    /// @notice Buys exactly `destAmount` for at most `maxSrcAmount`. Pools round each hop's input up, so the last hop
    ///         can yield a few units more than `destAmount`: that surplus stays in the router, as an aggregator keeps
    ///         positive slippage on buys. With a native source, `msg.value` may exceed the need: the excess is refunded.
    function swapExactAmountOut(
        address srcToken,
        address destToken,
        uint256 maxSrcAmount,
        uint256 destAmount,
        address[] calldata pools,
        address beneficiary,
        uint256 deadline
    ) external payable returns (uint256 srcAmount) {
        _checkDeadline(deadline);
        address[] memory path = _path(srcToken, destToken, pools);
        if (beneficiary == address(0)) beneficiary = msg.sender;

        uint256[] memory hopOutputs;
        (srcAmount, hopOutputs) = _amountsInBackwards(path, pools, destAmount);
        require(srcAmount <= maxSrcAmount, "INSUFFICIENT_OUTPUT");

        if (srcToken == NATIVE) require(msg.value >= srcAmount, "INVALID_MSG_VALUE");
        else require(msg.value == 0, "INVALID_MSG_VALUE");
        _pullInto(srcToken, srcAmount, pools[0]);

        _swapAlong(path, pools, hopOutputs, address(this));
        if (destToken == NATIVE) _sendNative(beneficiary, destAmount);
        else SafeTransfer.safeTransfer(destToken, beneficiary, destAmount);
        // The unused part of msg.value was never wrapped.
        if (srcToken == NATIVE && msg.value > srcAmount) {
            SafeTransfer.safeTransferNative(msg.sender, msg.value - srcAmount);
        }
        emit Swapped(msg.sender, srcToken, destToken, srcAmount, destAmount, beneficiary);
    }

    /// @notice Fills a market maker's firm quote for the caller: pulls `takerFill` of the order's takerAsset from the
    ///         caller, lets the RFQ contract take it (the router is the order's taker) and has the maker asset paid to
    ///         `beneficiary` (0 = the caller). The order's nonceAndMeta must name, in its low 160 bits, the caller or
    ///         the transaction's origin (the user behind an intermediary contract, POST /transactions' txOrigin): a
    ///         firm quote is made for one user and nobody else can take it. `deadline` 0 means none.
    /// @dev Production's method of the same name takes batches of orders; the sandbox fills one order.
    function swapOnAugustusRFQTryBatchFill(
        RfqSettlement.Order calldata order,
        bytes calldata signature,
        uint256 takerFill,
        uint256 minMakerFill,
        address beneficiary,
        uint256 deadline
    ) external returns (uint256 makerFill) {
        _checkDeadline(deadline);
        _checkRfqUser(order);
        address rfq = _rfq();
        if (beneficiary == address(0)) beneficiary = msg.sender;

        bool pulled = SafeTransfer.tryTransferFrom(order.takerAsset, msg.sender, address(this), takerFill);
        require(pulled, "TransferHelper: TRANSFER_FROM_FAILED");
        _approve(order.takerAsset, rfq, takerFill);
        makerFill = RfqSettlement(rfq).partialFillOrderWithTarget(order, signature, takerFill, beneficiary);
        require(makerFill >= minMakerFill, "INSUFFICIENT_OUTPUT");
        emit Swapped(msg.sender, order.takerAsset, order.makerAsset, takerFill, makerFill, beneficiary);
    }

    /// @notice swapExactAmountIn with the partner options of the build: the fee (or the collected surplus) comes out
    ///         of the output, the beneficiary gets at least `minDestAmount` of the rest, and the source may be pulled
    ///         through Permit2 (`options.permit`).
    function swapExactAmountIn(
        address srcToken,
        address destToken,
        uint256 srcAmount,
        uint256 minDestAmount,
        address[] calldata pools,
        address beneficiary,
        uint256 deadline,
        SwapOptions calldata options
    ) external payable returns (uint256 destAmount) {
        return _sellWithOptions(Swap(srcToken, destToken, srcAmount, minDestAmount, beneficiary, deadline), pools, options);
    }

    /// @notice swapExactAmountOut with the partner options of the build: the fee (or the collected surplus) is paid in
    ///         the source on top of what the pools take, all of it within `maxSrcAmount`; returns what the user paid.
    function swapExactAmountOut(
        address srcToken,
        address destToken,
        uint256 maxSrcAmount,
        uint256 destAmount,
        address[] calldata pools,
        address beneficiary,
        uint256 deadline,
        SwapOptions calldata options
    ) external payable returns (uint256 srcAmount) {
        return _buyWithOptions(Swap(srcToken, destToken, maxSrcAmount, destAmount, beneficiary, deadline), pools, options);
    }

    /// @notice swapOnAugustusRFQTryBatchFill with the partner options of the build. Without EXACT_OUT (a SELL) the
    ///         fee comes out of the maker asset and `minMakerFill` bounds what the beneficiary receives; with it (a
    ///         BUY) the fee is paid in the taker asset on top of `takerFill`.
    function swapOnAugustusRFQTryBatchFill(
        RfqSettlement.Order calldata order,
        bytes calldata signature,
        uint256 takerFill,
        uint256 minMakerFill,
        address beneficiary,
        uint256 deadline,
        SwapOptions calldata options
    ) external returns (uint256 makerFill) {
        _checkDeadline(deadline);
        _checkOptions(options);
        _checkRfqUser(order);
        Swap memory swap =
            Swap(order.takerAsset, order.makerAsset, takerFill, minMakerFill, beneficiary == address(0) ? msg.sender : beneficiary, deadline);
        makerFill = options.flags & EXACT_OUT != 0
            ? _fillRfqBuy(order, signature, swap, options)
            : _fillRfqSell(order, signature, swap, options);
        emit Swapped(msg.sender, order.takerAsset, order.makerAsset, swap.srcAmount, makerFill, swap.beneficiary);
    }

    function _sellWithOptions(Swap memory swap, address[] calldata pools, SwapOptions calldata options)
        private
        returns (uint256 net)
    {
        _checkDeadline(swap.deadline);
        _checkOptions(options);
        address[] memory path = _path(swap.srcToken, swap.destToken, pools);
        if (swap.beneficiary == address(0)) swap.beneficiary = msg.sender;
        if (swap.srcToken == NATIVE) {
            require(msg.value == swap.srcAmount, "INVALID_MSG_VALUE");
            _pullInto(NATIVE, swap.srcAmount, pools[0]);
        } else {
            require(msg.value == 0, "INVALID_MSG_VALUE");
            _pull(swap.srcToken, msg.sender, pools[0], swap.srcAmount, swap.srcAmount, swap.deadline, options.permit);
        }
        // The output comes to the router, which measures it, takes the partner's share and forwards the rest.
        address output = path[pools.length];
        uint256 gross = _balanceOf(output);
        _swapAlong(path, pools, new uint256[](pools.length), address(this));
        gross = _balanceOf(output) - gross;
        (uint256 fee, uint256 surplus) = _sellShares(options, gross);
        net = gross - fee - surplus;
        require(net >= swap.destAmount, "INSUFFICIENT_OUTPUT");
        if (swap.destToken == NATIVE) WrappedNative(payable(wrappedNative)).withdraw(gross);
        _payPartner(options, swap.destToken, fee, surplus);
        _deliver(swap.destToken, swap.beneficiary, net);
        emit Swapped(msg.sender, swap.srcToken, swap.destToken, swap.srcAmount, net, swap.beneficiary);
    }

    function _buyWithOptions(Swap memory swap, address[] calldata pools, SwapOptions calldata options)
        private
        returns (uint256 paid)
    {
        _checkDeadline(swap.deadline);
        _checkOptions(options);
        address[] memory path = _path(swap.srcToken, swap.destToken, pools);
        if (swap.beneficiary == address(0)) swap.beneficiary = msg.sender;
        (uint256 spent, uint256[] memory hopOutputs) = _amountsInBackwards(path, pools, swap.destAmount);
        (uint256 fee, uint256 surplus) = _buyShares(options, spent);
        paid = spent + fee + surplus;
        require(paid <= swap.srcAmount, "INSUFFICIENT_OUTPUT");
        if (swap.srcToken == NATIVE) {
            require(msg.value >= paid, "INVALID_MSG_VALUE");
            _pullInto(NATIVE, spent, pools[0]);
        } else {
            require(msg.value == 0, "INVALID_MSG_VALUE");
            // One pull of everything the user pays (a Permit2 signature transfer allows one), then the pools' part on.
            _pull(swap.srcToken, msg.sender, address(this), paid, swap.srcAmount, swap.deadline, options.permit);
            SafeTransfer.safeTransfer(swap.srcToken, pools[0], spent);
        }
        _swapAlong(path, pools, hopOutputs, address(this));
        if (swap.destToken == NATIVE) _sendNative(swap.beneficiary, swap.destAmount);
        else SafeTransfer.safeTransfer(swap.destToken, swap.beneficiary, swap.destAmount);
        _payPartner(options, swap.srcToken, fee, surplus);
        if (swap.srcToken == NATIVE && msg.value > paid) SafeTransfer.safeTransferNative(msg.sender, msg.value - paid);
        emit Swapped(msg.sender, swap.srcToken, swap.destToken, paid, swap.destAmount, swap.beneficiary);
    }

    /// @dev SELL through a maker: the maker asset comes to the router, which takes the partner's share.
    function _fillRfqSell(
        RfqSettlement.Order calldata order,
        bytes calldata signature,
        Swap memory swap,
        SwapOptions calldata options
    ) private returns (uint256 net) {
        address rfq = _rfq();
        _pull(swap.srcToken, msg.sender, address(this), swap.srcAmount, swap.srcAmount, swap.deadline, options.permit);
        _approve(swap.srcToken, rfq, swap.srcAmount);
        uint256 gross = RfqSettlement(rfq).partialFillOrderWithTarget(order, signature, swap.srcAmount, address(this));
        (uint256 fee, uint256 surplus) = _sellShares(options, gross);
        net = gross - fee - surplus;
        require(net >= swap.destAmount, "INSUFFICIENT_OUTPUT");
        _payPartner(options, swap.destToken, fee, surplus);
        SafeTransfer.safeTransfer(swap.destToken, swap.beneficiary, net);
    }

    /// @dev BUY through a maker: the partner's share is paid in the taker asset on top of the fill.
    function _fillRfqBuy(
        RfqSettlement.Order calldata order,
        bytes calldata signature,
        Swap memory swap,
        SwapOptions calldata options
    ) private returns (uint256 makerFill) {
        address rfq = _rfq();
        (uint256 fee, uint256 surplus) = _buyShares(options, swap.srcAmount);
        uint256 paid = swap.srcAmount + fee + surplus;
        _pull(swap.srcToken, msg.sender, address(this), paid, paid, swap.deadline, options.permit);
        _approve(swap.srcToken, rfq, swap.srcAmount);
        makerFill = RfqSettlement(rfq).partialFillOrderWithTarget(order, signature, swap.srcAmount, swap.beneficiary);
        require(makerFill >= swap.destAmount, "INSUFFICIENT_OUTPUT");
        _payPartner(options, swap.srcToken, fee, surplus);
        swap.srcAmount = paid;
    }

    /// @notice Output of selling `srcAmount` of `srcToken` along `pools`.
    function quoteExactAmountIn(uint256 srcAmount, address srcToken, address[] calldata pools)
        external
        view
        returns (uint256)
    {
        address token = _wrapped(srcToken);
        uint256 amount = srcAmount;
        for (uint256 i; i < pools.length; ++i) {
            amount = ConstantProductPool(pools[i]).getAmountOut(token, amount);
            token = _otherToken(pools[i], token);
        }
        return amount;
    }

    /// @notice Input needed to buy `destAmount` of `destToken` along `pools` (the last pool holds `destToken`).
    function quoteExactAmountOut(uint256 destAmount, address destToken, address[] calldata pools)
        external
        view
        returns (uint256)
    {
        address token = _wrapped(destToken);
        uint256 amount = destAmount;
        for (uint256 i = pools.length; i > 0; --i) {
            amount = ConstantProductPool(pools[i - 1]).getAmountIn(token, amount);
            token = _otherToken(pools[i - 1], token);
        }
        return amount;
    }

    function _checkDeadline(uint256 deadline) private view {
        require(deadline == 0 || block.timestamp <= deadline, "EXPIRED");
    }

    function _checkRfqUser(RfqSettlement.Order calldata order) private view {
        address user = address(uint160(order.nonceAndMeta));
        require(user == msg.sender || user == tx.origin, "RFQ_USER_MISMATCH");
    }

    function _rfq() private view returns (address rfq) {
        rfq = rfqSettlement;
        require(rfq != address(0), "RFQ_NOT_SET");
    }

    function _balanceOf(address token) private view returns (uint256) {
        (bool ok, bytes memory result) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        require(ok && result.length >= 32, "INVALID_TOKEN");
        return abi.decode(result, (uint256));
    }

    /// @dev Tokens entering each pool: path[i] goes into pools[i], path[pools.length] comes out of the last one.
    function _path(address srcToken, address destToken, address[] calldata pools)
        private
        view
        returns (address[] memory path)
    {
        require(pools.length > 0, "INVALID_PATH");
        path = new address[](pools.length + 1);
        path[0] = _wrapped(srcToken);
        for (uint256 i; i < pools.length; ++i) {
            path[i + 1] = _otherToken(pools[i], path[i]);
        }
        require(path[pools.length] == _wrapped(destToken), "INVALID_PATH");
    }

    /// @dev The input the first pool needs, and the output each hop must deliver so the last delivers `destAmount`.
    function _amountsInBackwards(address[] memory path, address[] calldata pools, uint256 destAmount)
        private
        view
        returns (uint256 srcAmount, uint256[] memory hopOutputs)
    {
        hopOutputs = new uint256[](pools.length);
        uint256 amount = destAmount;
        for (uint256 i = pools.length; i > 0; --i) {
            hopOutputs[i - 1] = amount;
            amount = ConstantProductPool(pools[i - 1]).getAmountIn(path[i], amount);
        }
        srcAmount = amount;
    }

    /// @dev Moves the source into the first pool: wraps a native source, pulls an ERC-20 from the caller.
    function _pullInto(address srcToken, uint256 amount, address pool) private {
        if (srcToken == NATIVE) {
            WrappedNative(payable(wrappedNative)).deposit{value: amount}();
            SafeTransfer.safeTransfer(wrappedNative, pool, amount);
        } else {
            // The real router's wording for a missing allowance or balance; clients match on it.
            bool pulled = SafeTransfer.tryTransferFrom(srcToken, msg.sender, pool, amount);
            require(pulled, "TransferHelper: TRANSFER_FROM_FAILED");
        }
    }

    /// @dev Each pool pays the next one directly; the last pays `recipient`. Returns the last output.
    function _swapAlong(
        address[] memory path,
        address[] calldata pools,
        uint256[] memory minOutputs,
        address recipient
    ) private returns (uint256 amountOut) {
        uint256 last = pools.length - 1;
        for (uint256 i; i <= last; ++i) {
            address to = i == last ? recipient : pools[i + 1];
            amountOut = ConstantProductPool(pools[i]).swap(path[i], minOutputs[i], to);
        }
    }

    /// @dev Sets an allowance exactly, through zero first (USDT-style tokens refuse non-zero to non-zero; they return
    ///      no data, hence the low-level call).
    function _approve(address token, address spender, uint256 amount) private {
        (bool ok, bytes memory result) = token.call(abi.encodeWithSelector(0x095ea7b3, spender, 0));
        if (ok && amount != 0) (ok, result) = token.call(abi.encodeWithSelector(0x095ea7b3, spender, amount));
        require(ok && (result.length == 0 || abi.decode(result, (bool))), "APPROVE_FAILED");
    }

    function _sendNative(address to, uint256 amount) private {
        WrappedNative(payable(wrappedNative)).withdraw(amount);
        SafeTransfer.safeTransferNative(to, amount);
    }

    function _wrapped(address token) private view returns (address) {
        return token == NATIVE ? wrappedNative : token;
    }

    function _otherToken(address pool, address token) private view returns (address) {
        require(pool.code.length > 0, "INVALID_PATH");
        address token0 = ConstantProductPool(pool).token0();
        address token1 = ConstantProductPool(pool).token1();
        if (token == token0 && token != address(0)) return token1;
        if (token == token1 && token != address(0)) return token0;
        revert("INVALID_PATH");
    }
}
