// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SandboxErc20Core, SandboxMintable} from "./SandboxErc20Core.sol";

/// @notice Behaves like mainnet USDT where integrations trip: transfer, transferFrom and approve return no data,
///         and approve refuses to change one non-zero allowance into another (approve 0 first).
contract UsdtStyleToken is SandboxMintable {
    error ApproveFromNonZero(uint256 currentAllowance);

    function initialize(string calldata name_, string calldata symbol_, uint8 decimals_, address minter_) external {
        _initializeToken(name_, symbol_, decimals_);
        minter = minter_;
    }

    function transfer(address to, uint256 amount) external {
        _transfer(msg.sender, to, amount);
    }

    function transferFrom(address from, address to, uint256 amount) external {
        _spendAllowance(from, msg.sender, amount);
        _transfer(from, to, amount);
    }

    function approve(address spender, uint256 amount) external {
        uint256 current = allowance[msg.sender][spender];
        if (amount != 0 && current != 0) revert ApproveFromNonZero(current);
        _approve(msg.sender, spender, amount);
    }
}
