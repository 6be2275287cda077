// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeTransfer} from "../lib/SafeTransfer.sol";

/// @notice x·y=k pool without LP tokens: the sandbox operator owns the liquidity, added by transferring tokens in
///         and calling `sync`. Swaps are push-then-call: send `tokenIn` to the pool, then call `swap`.
contract ConstantProductPool {
    uint256 private constant BPS = 10_000;

    event Swap(
        address indexed sender,
        address indexed tokenIn,
        address indexed tokenOut,
        uint256 amountIn,
        uint256 amountOut,
        address to
    );
    event Sync(uint256 reserve0, uint256 reserve1);

    error AlreadyInitialized();

    bool private _initialized;
    address public token0;
    address public token1;
    uint16 public feeBps;
    uint256 private _reserve0;
    uint256 private _reserve1;

    /// @param feeBps_ Fee on the input amount in basis points (30 = 0.3%); below 10 000.
    function initialize(address token0_, address token1_, uint16 feeBps_) external {
        if (_initialized) revert AlreadyInitialized();
        require(token0_ != address(0) && token1_ != address(0) && token0_ != token1_, "POOL: INVALID_TOKEN");
        require(feeBps_ < BPS, "POOL: INVALID_FEE");
        _initialized = true;
        token0 = token0_;
        token1 = token1_;
        feeBps = feeBps_;
    }

    function getReserves() external view returns (uint256 reserve0, uint256 reserve1) {
        return (_reserve0, _reserve1);
    }

    /// @notice Output for `amountIn` of `tokenIn`, rounded down.
    function getAmountOut(address tokenIn, uint256 amountIn) public view returns (uint256) {
        (uint256 reserveIn, uint256 reserveOut,) = _orient(tokenIn);
        require(amountIn > 0, "POOL: INSUFFICIENT_INPUT");
        require(reserveIn > 0 && reserveOut > 0, "POOL: INSUFFICIENT_LIQUIDITY");
        uint256 amountInAfterFee = amountIn * (BPS - feeBps);
        return (amountInAfterFee * reserveOut) / (reserveIn * BPS + amountInAfterFee);
    }

    /// @notice Smallest input of the other token that yields at least `amountOut` of `tokenOut` (rounded up, so
    ///         `getAmountOut(tokenIn, getAmountIn(tokenOut, x)) >= x`).
    function getAmountIn(address tokenOut, uint256 amountOut) public view returns (uint256) {
        (uint256 reserveOut, uint256 reserveIn,) = _orient(tokenOut);
        require(amountOut > 0, "POOL: INSUFFICIENT_OUTPUT");
        require(reserveIn > 0 && amountOut < reserveOut, "POOL: INSUFFICIENT_LIQUIDITY");
        uint256 numerator = reserveIn * amountOut * BPS;
        uint256 denominator = (reserveOut - amountOut) * (BPS - feeBps);
        return (numerator + denominator - 1) / denominator;
    }

    /// @notice Sets the reserves to the pool's balances.
    function sync() external {
        _sync(_balanceOf(token0), _balanceOf(token1));
    }

    /// @notice Swaps what was sent in beyond the `tokenIn` reserve and pays the output to `to`.
    function swap(address tokenIn, uint256 minAmountOut, address to) external returns (uint256 amountOut) {
        (uint256 reserveIn,, address tokenOut) = _orient(tokenIn);
        uint256 balanceIn = _balanceOf(tokenIn);
        require(balanceIn > reserveIn, "POOL: INSUFFICIENT_INPUT");
        uint256 amountIn = balanceIn - reserveIn;
        amountOut = getAmountOut(tokenIn, amountIn);
        require(amountOut > 0 && amountOut >= minAmountOut, "POOL: INSUFFICIENT_OUTPUT");
        SafeTransfer.safeTransfer(tokenOut, to, amountOut);
        _sync(_balanceOf(token0), _balanceOf(token1));
        emit Swap(msg.sender, tokenIn, tokenOut, amountIn, amountOut, to);
    }

    /// @dev (reserve of `token`, reserve of the other token, the other token); reverts for a foreign token.
    function _orient(address token) private view returns (uint256, uint256, address) {
        if (token == token0 && token != address(0)) return (_reserve0, _reserve1, token1);
        if (token == token1 && token != address(0)) return (_reserve1, _reserve0, token0);
        revert("POOL: INVALID_TOKEN");
    }

    function _sync(uint256 balance0, uint256 balance1) private {
        _reserve0 = balance0;
        _reserve1 = balance1;
        emit Sync(balance0, balance1);
    }

    function _balanceOf(address token) private view returns (uint256) {
        (bool ok, bytes memory result) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        // Only an uninitialised pool (token address 0) gets here without a balance.
        require(ok && result.length >= 32, "POOL: INVALID_TOKEN");
        return abi.decode(result, (uint256));
    }
}
