// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeTransfer} from "./lib/SafeTransfer.sol";
import {SignatureChecker} from "./lib/SignatureChecker.sol";

/// @title Sandbox RFQ / OTC settlement with AugustusRFQ semantics (placed per chain with anvil_setCode)
/// @notice Makers sign orders off-chain; takers fill them in full or in part. The maker approves this contract for
///         makerAsset, the taker for takerAsset.
/// @dev Stateless setup: no constructor logic, no immutables, no initializer needed; the EIP-712 domain separator is
///      computed per use. Partial-fill state per maker and order hash (`remaining`): 0 = never touched,
///      1 = fully filled or cancelled, otherwise the remaining takerAmount + 1.
///      The low 160 bits of nonceAndMeta (the intended taker) are not enforced here; `taker` is.
contract RfqSettlement {
    struct Order {
        uint256 nonceAndMeta;
        uint128 expiry;
        address makerAsset;
        address takerAsset;
        address maker;
        address taker;
        uint256 makerAmount;
        uint256 takerAmount;
    }

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("AUGUSTUS RFQ");
    bytes32 private constant VERSION_HASH = keccak256("1");
    bytes32 private constant ORDER_TYPEHASH = keccak256(
        "Order(uint256 nonceAndMeta,uint128 expiry,address makerAsset,address takerAsset,address maker,address taker,"
        "uint256 makerAmount,uint256 takerAmount)"
    );
    uint256 private constant FILLED_OR_CANCELLED = 1;

    /// @notice 0 = never touched, 1 = fully filled or cancelled, otherwise remaining takerAmount + 1.
    mapping(address maker => mapping(bytes32 orderHash => uint256)) public remaining;

    event OrderFilled(
        bytes32 indexed orderHash,
        address indexed maker,
        address makerAsset,
        uint256 makerAmount,
        address indexed taker,
        address takerAsset,
        uint256 takerAmount
    );
    event OrderCancelled(bytes32 indexed orderHash, address indexed maker);

    error OrderExpired(uint256 expiry);
    error UnauthorizedTaker(address allowedTaker, address caller);
    error InvalidSignature();
    error OrderFilledOrCancelled();
    error FillExceedsRemaining(uint256 remainingTakerAmount, uint256 requested);
    error ZeroFillAmount();

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice EIP-5267.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "AUGUSTUS RFQ", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @notice Full EIP-712 digest of an order (the OTC book's orderHash).
    function hashOrder(Order calldata order) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(ORDER_TYPEHASH, order));
        return keccak256(abi.encodePacked(hex"1901", DOMAIN_SEPARATOR(), structHash));
    }

    /// @notice Fills the whole order; reverts once any part of it was filled.
    function fillOrder(Order calldata order, bytes calldata signature) external {
        _fill(order, signature, order.takerAmount, msg.sender);
    }

    /// @notice Fills `takerTokenFillAmount` of takerAmount; the maker amount is rounded down.
    function partialFillOrder(Order calldata order, bytes calldata signature, uint256 takerTokenFillAmount)
        external
        returns (uint256 makerTokenFilledAmount)
    {
        return _fill(order, signature, takerTokenFillAmount, msg.sender);
    }

    /// @notice As partialFillOrder, with the maker asset sent to `target`.
    function partialFillOrderWithTarget(
        Order calldata order,
        bytes calldata signature,
        uint256 takerTokenFillAmount,
        address target
    ) external returns (uint256 makerTokenFilledAmount) {
        return _fill(order, signature, takerTokenFillAmount, target);
    }

    function cancelOrder(bytes32 orderHash) external {
        _cancel(orderHash);
    }

    function cancelOrders(bytes32[] calldata orderHashes) external {
        for (uint256 i = 0; i < orderHashes.length; ++i) {
            _cancel(orderHashes[i]);
        }
    }

    function _fill(Order calldata order, bytes calldata signature, uint256 takerFill, address target)
        private
        returns (uint256 makerFill)
    {
        if (takerFill == 0) revert ZeroFillAmount();
        if (order.expiry != 0 && block.timestamp > order.expiry) revert OrderExpired(order.expiry);
        if (order.taker != address(0) && order.taker != msg.sender) revert UnauthorizedTaker(order.taker, msg.sender);
        bytes32 orderHash = hashOrder(order);
        uint256 left = _remainingBeforeFill(order.maker, orderHash, order.takerAmount, signature);
        if (takerFill > left) revert FillExceedsRemaining(left, takerFill);
        remaining[order.maker][orderHash] = left - takerFill + 1;

        makerFill = takerFill * order.makerAmount / order.takerAmount;
        SafeTransfer.safeTransferFrom(order.takerAsset, msg.sender, order.maker, takerFill);
        SafeTransfer.safeTransferFrom(order.makerAsset, order.maker, target, makerFill);
        emit OrderFilled(orderHash, order.maker, order.makerAsset, makerFill, msg.sender, order.takerAsset, takerFill);
    }

    /// @dev The signature is checked on the first fill only; later fills rely on the recorded state.
    function _remainingBeforeFill(address maker, bytes32 orderHash, uint256 takerAmount, bytes calldata signature)
        private
        view
        returns (uint256)
    {
        uint256 state = remaining[maker][orderHash];
        if (state == FILLED_OR_CANCELLED) revert OrderFilledOrCancelled();
        if (state != 0) return state - 1;
        if (maker.code.length == 0 && signature.length != 64 && signature.length != 65) revert InvalidSignature();
        if (!SignatureChecker.isValid(maker, orderHash, signature)) revert InvalidSignature();
        return takerAmount;
    }

    function _cancel(bytes32 orderHash) private {
        remaining[msg.sender][orderHash] = FILLED_OR_CANCELLED;
        emit OrderCancelled(orderHash, msg.sender);
    }
}
