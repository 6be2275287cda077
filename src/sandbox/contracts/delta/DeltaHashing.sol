// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Bridge, ExternalOrder, Order, TWAPBuyOrder, TWAPOrder} from "./DeltaTypes.sol";

/// @notice EIP-712 struct hashes of the Delta payloads under the "Portikus" 2.0.0 domain (protocol-facts).
/// @dev A struct that nests Bridge appends the Bridge type string to its own; bytes and string fields are hashed.
///      Each hash is built from two abi.encode halves: the static words concatenate exactly like one abi.encode,
///      and the split keeps the stack shallow without viaIR.
library DeltaHashing {
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant NAME_HASH = keccak256("Portikus");
    bytes32 internal constant VERSION_HASH = keccak256("2.0.0");

    bytes32 internal constant BRIDGE_TYPEHASH = keccak256(
        "Bridge(bytes4 protocolSelector,uint256 destinationChainId,address outputToken,int8 scalingFactor,bytes protocolData)"
    );
    bytes32 internal constant ORDER_TYPEHASH = keccak256(
        "Order(address owner,address beneficiary,address srcToken,address destToken,uint256 srcAmount,uint256 destAmount,"
        "uint256 expectedAmount,uint256 deadline,uint8 kind,uint256 nonce,uint256 partnerAndFee,bytes permit,bytes metadata,"
        "Bridge bridge)"
        "Bridge(bytes4 protocolSelector,uint256 destinationChainId,address outputToken,int8 scalingFactor,bytes protocolData)"
    );
    bytes32 internal constant TWAP_ORDER_TYPEHASH = keccak256(
        "TWAPOrder(address owner,address beneficiary,address srcToken,address destToken,uint256 nonce,uint256 partnerAndFee,"
        "uint64 deadline,uint64 interval,uint32 numSlices,uint256 destAmountPerSlice,uint256 totalSrcAmount,bytes permit,"
        "bytes metadata,Bridge bridge)"
        "Bridge(bytes4 protocolSelector,uint256 destinationChainId,address outputToken,int8 scalingFactor,bytes protocolData)"
    );
    bytes32 internal constant TWAP_BUY_ORDER_TYPEHASH = keccak256(
        "TWAPBuyOrder(address owner,address beneficiary,address srcToken,address destToken,uint256 nonce,uint256 partnerAndFee,"
        "uint64 deadline,uint64 interval,uint32 numSlices,uint256 totalDestAmount,uint256 maxSrcAmount,bytes permit,"
        "bytes metadata,Bridge bridge)"
        "Bridge(bytes4 protocolSelector,uint256 destinationChainId,address outputToken,int8 scalingFactor,bytes protocolData)"
    );
    bytes32 internal constant EXTERNAL_ORDER_TYPEHASH = keccak256(
        "ExternalOrder(address owner,address handler,address srcToken,address destToken,uint256 srcAmount,uint256 destAmount,"
        "uint256 expectedAmount,uint256 deadline,uint8 kind,uint256 nonce,uint256 partnerAndFee,bytes permit,bytes metadata,"
        "bytes data)"
    );
    bytes32 internal constant ORDER_CANCELLATIONS_TYPEHASH = keccak256("OrderCancellations(string[] orderIds)");

    /// @dev Computed per use: the contract is placed with anvil_setCode, so it has no immutables.
    function domainSeparator() internal view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @dev "\x19\x01" ‖ domainSeparator ‖ structHash.
    function digest(bytes32 structHash) internal view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", domainSeparator(), structHash));
    }

    function hashBridge(Bridge calldata bridge) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                BRIDGE_TYPEHASH,
                bridge.protocolSelector,
                bridge.destinationChainId,
                bridge.outputToken,
                bridge.scalingFactor,
                keccak256(bridge.protocolData)
            )
        );
    }

    function hashOrder(Order calldata order) internal pure returns (bytes32) {
        bytes memory head = abi.encode(
            ORDER_TYPEHASH,
            order.owner,
            order.beneficiary,
            order.srcToken,
            order.destToken,
            order.srcAmount,
            order.destAmount,
            order.expectedAmount
        );
        bytes memory tail = abi.encode(
            order.deadline,
            order.kind,
            order.nonce,
            order.partnerAndFee,
            keccak256(order.permit),
            keccak256(order.metadata),
            hashBridge(order.bridge)
        );
        return keccak256(bytes.concat(head, tail));
    }

    function hashTwapOrder(TWAPOrder calldata order) internal pure returns (bytes32) {
        bytes memory head = abi.encode(
            TWAP_ORDER_TYPEHASH,
            order.owner,
            order.beneficiary,
            order.srcToken,
            order.destToken,
            order.nonce,
            order.partnerAndFee
        );
        bytes memory tail = abi.encode(
            order.deadline,
            order.interval,
            order.numSlices,
            order.destAmountPerSlice,
            order.totalSrcAmount,
            keccak256(order.permit),
            keccak256(order.metadata),
            hashBridge(order.bridge)
        );
        return keccak256(bytes.concat(head, tail));
    }

    function hashTwapBuyOrder(TWAPBuyOrder calldata order) internal pure returns (bytes32) {
        bytes memory head = abi.encode(
            TWAP_BUY_ORDER_TYPEHASH,
            order.owner,
            order.beneficiary,
            order.srcToken,
            order.destToken,
            order.nonce,
            order.partnerAndFee
        );
        bytes memory tail = abi.encode(
            order.deadline,
            order.interval,
            order.numSlices,
            order.totalDestAmount,
            order.maxSrcAmount,
            keccak256(order.permit),
            keccak256(order.metadata),
            hashBridge(order.bridge)
        );
        return keccak256(bytes.concat(head, tail));
    }

    function hashExternalOrder(ExternalOrder calldata order) internal pure returns (bytes32) {
        bytes memory head = abi.encode(
            EXTERNAL_ORDER_TYPEHASH,
            order.owner,
            order.handler,
            order.srcToken,
            order.destToken,
            order.srcAmount,
            order.destAmount,
            order.expectedAmount
        );
        bytes memory tail = abi.encode(
            order.deadline,
            order.kind,
            order.nonce,
            order.partnerAndFee,
            keccak256(order.permit),
            keccak256(order.metadata),
            keccak256(order.data)
        );
        return keccak256(bytes.concat(head, tail));
    }

    /// @dev string[]: keccak256 of the concatenated keccak256 of each string.
    function hashOrderCancellations(string[] calldata orderIds) internal pure returns (bytes32) {
        bytes32[] memory idHashes = new bytes32[](orderIds.length);
        for (uint256 i = 0; i < orderIds.length; ++i) {
            idHashes[i] = keccak256(bytes(orderIds[i]));
        }
        return keccak256(abi.encode(ORDER_CANCELLATIONS_TYPEHASH, keccak256(abi.encodePacked(idHashes))));
    }
}
