// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeTransfer} from "../lib/SafeTransfer.sol";
import {SandboxErc20} from "./SandboxErc20Core.sol";

/// @notice WETH9 semantics: 1:1 wrapped native coin, 18 decimals, sending the coin to the contract deposits it.
contract WrappedNative is SandboxErc20 {
    event Deposit(address indexed dst, uint256 wad);
    event Withdrawal(address indexed src, uint256 wad);

    function initialize(string calldata name_, string calldata symbol_) external {
        _initializeToken(name_, symbol_, 18);
    }

    receive() external payable {
        deposit();
    }

    function deposit() public payable {
        _mint(msg.sender, msg.value);
        emit Deposit(msg.sender, msg.value);
    }

    function withdraw(uint256 wad) external {
        _burn(msg.sender, wad);
        emit Withdrawal(msg.sender, wad);
        SafeTransfer.safeTransferNative(msg.sender, wad);
    }
}
