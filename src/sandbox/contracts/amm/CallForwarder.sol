// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Stands in, for one eth_call or eth_estimateGas only (a state override of its code), for the intermediary
///         contract a Market build names as userAddress with a different txOrigin: the sandbox runs the swap as a
///         transaction from txOrigin in which that contract calls the router, so msg.sender and tx.origin are both as
///         they will be. Never placed on a chain.
contract CallForwarder {
    /// @dev The router may pay the contract in ETH (a refund, or a native output it receives itself).
    receive() external payable {}

    /// @notice Calls `to` with `data` and `value` wei of the contract's own balance, as the intermediary pays a
    ///         native source itself; bubbles up the callee's revert data.
    function forward(address to, uint256 value, bytes calldata data) external returns (bytes memory result) {
        bool ok;
        (ok, result) = to.call{value: value}(data);
        if (!ok) {
            assembly {
                revert(add(result, 0x20), mload(result))
            }
        }
    }
}
