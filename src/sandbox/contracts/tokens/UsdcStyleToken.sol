// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SandboxEip2612Token} from "./SandboxToken.sol";

/// @notice Behaves like mainnet USDC (FiatToken v2) where wallets trip: an EIP-2612 permit under the domain of name()
///         and version() ("2" for USDC), told only through DOMAIN_SEPARATOR(): there is no EIP-5267 eip712Domain().
contract UsdcStyleToken is SandboxEip2612Token {}
