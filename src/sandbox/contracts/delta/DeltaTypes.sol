// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Delta order structs (protocol-facts). Field order is part of the EIP-712 hash: do not reorder.

/// @notice Crosschain leg of an order; all zero for a same-chain order.
struct Bridge {
    bytes4 protocolSelector;
    uint256 destinationChainId;
    address outputToken;
    int8 scalingFactor;
    bytes protocolData;
}

/// @notice A standard Delta order. kind 0 = sell (srcAmount fixed, destAmount minimum out), 1 = buy (destAmount fixed,
///         srcAmount maximum in).
struct Order {
    address owner;
    address beneficiary;
    address srcToken;
    address destToken;
    uint256 srcAmount;
    uint256 destAmount;
    uint256 expectedAmount;
    uint256 deadline;
    uint8 kind;
    uint256 nonce;
    uint256 partnerAndFee;
    bytes permit;
    bytes metadata;
    Bridge bridge;
}

/// @notice A sell TWAP: numSlices slices of floor(totalSrcAmount / numSlices), each for at least destAmountPerSlice.
struct TWAPOrder {
    address owner;
    address beneficiary;
    address srcToken;
    address destToken;
    uint256 nonce;
    uint256 partnerAndFee;
    uint64 deadline;
    uint64 interval;
    uint32 numSlices;
    uint256 destAmountPerSlice;
    uint256 totalSrcAmount;
    bytes permit;
    bytes metadata;
    Bridge bridge;
}

/// @notice A buy TWAP: numSlices slices of floor(totalDestAmount / numSlices), each for at most the same slice of maxSrcAmount.
struct TWAPBuyOrder {
    address owner;
    address beneficiary;
    address srcToken;
    address destToken;
    uint256 nonce;
    uint256 partnerAndFee;
    uint64 deadline;
    uint64 interval;
    uint32 numSlices;
    uint256 totalDestAmount;
    uint256 maxSrcAmount;
    bytes permit;
    bytes metadata;
    Bridge bridge;
}

/// @notice An order whose source goes to a handler contract; no bridge.
struct ExternalOrder {
    address owner;
    address handler;
    address srcToken;
    address destToken;
    uint256 srcAmount;
    uint256 destAmount;
    uint256 expectedAmount;
    uint256 deadline;
    uint8 kind;
    uint256 nonce;
    uint256 partnerAndFee;
    bytes permit;
    bytes metadata;
    bytes data;
}
