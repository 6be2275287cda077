// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SandboxEip2612Token} from "./SandboxToken.sol";

/// @notice An EIP-2612 token renamed after launch whose permit domain kept the launch name: DOMAIN_SEPARATOR() no
///         longer hashes from name() and version(), and no eip712Domain() tells the real domain. A wallet cannot
///         rebuild its domain from what the token says; the sandbox uses it to check that wallets do not guess.
contract RenamedPermitToken is SandboxEip2612Token {
    string private _launchName;

    /// @notice Changes name(); the permit domain keeps the name the token had before its first rename.
    function rename(string calldata newName) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        if (bytes(_launchName).length == 0) _launchName = name;
        name = newName;
    }

    function _domainName() internal view override returns (string memory) {
        return bytes(_launchName).length == 0 ? name : _launchName;
    }
}
