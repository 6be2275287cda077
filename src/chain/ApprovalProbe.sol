// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Never deployed: its creation code runs inside one eth_call (no `to`), so every approve below happens from
///         a fresh address with no allowance anywhere and nothing is written to the chain. The constructor returns
///         abi.encode(bool fromZero, bool nonZeroToNonZero, bool toPermit2):
///         - fromZero: approve(spender, 1) with no allowance succeeded;
///         - nonZeroToNonZero: approve(spender, 2) right after it succeeded (USDT-style tokens refuse this);
///         - toPermit2: approve(permit2, 1) succeeded (permit-only tokens accept only this one).
/// @dev The embedded creation code in approval-probe.ts is this file compiled by solc 0.8.37, optimizer 200 runs,
///      EVM paris, no CBOR metadata; test/chain/approval-probe.test.ts recompiles it and compares.
contract ApprovalProbe {
    constructor(address token, address spender, address permit2) {
        bool fromZero = _approve(token, spender, 1);
        bool nonZeroToNonZero = fromZero && _approve(token, spender, 2);
        bool toPermit2 = _approve(token, permit2, 1);
        bytes memory result = abi.encode(fromZero, nonZeroToNonZero, toPermit2);
        assembly {
            return(add(result, 32), mload(result))
        }
    }

    /// @dev Success means: the call did not revert, and it returned nothing (USDT style) or a true bool.
    function _approve(address token, address spender, uint256 amount) private returns (bool) {
        if (token.code.length == 0) return false;
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0x095ea7b3, spender, amount));
        if (!ok) return false;
        if (data.length == 0) return true;
        return data.length == 32 && abi.decode(data, (uint256)) == 1;
    }
}
