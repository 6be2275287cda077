// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SandboxToken} from "./SandboxToken.sol";

/// @notice An EIP-2612 token that refuses plain approvals except to Permit2, so it can only be spent through
///         `permit` or Permit2. It exercises the service's "Permit / Permit2 required" rule.
contract PermitOnlyToken is SandboxToken {
    address private constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    error ApproveDisabled();

    function approve(address spender, uint256 amount) external override returns (bool) {
        if (spender != PERMIT2) revert ApproveDisabled();
        _approve(msg.sender, spender, amount);
        return true;
    }
}
