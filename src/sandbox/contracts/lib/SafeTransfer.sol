// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice ERC-20 calls that accept tokens returning nothing (USDT-style) as well as tokens returning a bool.
library SafeTransfer {
    error TransferFailed(address token, address from, address to, uint256 amount);

    /// @dev Reverts with TransferFailed on a revert or a `false` return.
    function safeTransfer(address token, address to, uint256 amount) internal {
        if (!_call(token, abi.encodeWithSelector(0xa9059cbb, to, amount))) {
            revert TransferFailed(token, address(this), to, amount);
        }
    }

    /// @dev Reverts with TransferFailed on a revert or a `false` return.
    function safeTransferFrom(address token, address from, address to, uint256 amount) internal {
        if (!_call(token, abi.encodeWithSelector(0x23b872dd, from, to, amount))) {
            revert TransferFailed(token, from, to, amount);
        }
    }

    /// @dev Returns false instead of reverting, so callers can choose their own revert message.
    function tryTransferFrom(address token, address from, address to, uint256 amount) internal returns (bool) {
        return _call(token, abi.encodeWithSelector(0x23b872dd, from, to, amount));
    }

    function safeTransferNative(address to, uint256 amount) internal {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed(address(0), address(this), to, amount);
    }

    function _call(address token, bytes memory data) private returns (bool) {
        if (token.code.length == 0) return false;
        (bool ok, bytes memory result) = token.call(data);
        return ok && (result.length == 0 || (result.length >= 32 && abi.decode(result, (bool))));
    }
}
