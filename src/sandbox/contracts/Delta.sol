// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DeltaHashing} from "./delta/DeltaHashing.sol";
import {DeltaPermits} from "./delta/DeltaPermits.sol";
import {Bridge, ExternalOrder, Order, TWAPBuyOrder, TWAPOrder} from "./delta/DeltaTypes.sol";
import {SafeTransfer} from "./lib/SafeTransfer.sol";
import {SignatureChecker} from "./lib/SignatureChecker.sol";

/// @title Sandbox Delta settlement (placed at the production Delta address with anvil_setCode)
/// @notice Registered agents settle signed Delta orders out of their own inventory: the source moves from the owner to
///         the agent, the destination from the agent to the beneficiary (the agent approves this contract).
/// @dev No constructor logic and no immutables: state comes from `initialize`, domain separators from block.chainid and
///      address(this) at each use.
///
///      Limits, for a fill of `fillAmount` on an order of kind 0 (sell) or 1 (buy):
///      - sell: `fillAmount` of srcAmount moves; the beneficiary must receive at least
///        ceil(destAmount * fillAmount / srcAmount) of the `agentAmount` the agent pays.
///      - buy: `fillAmount` of destAmount is delivered; the `agentAmount` of srcToken taken, plus any partner fee,
///        must not exceed floor(srcAmount * fillAmount / destAmount).
///
///      Partner fee, from partnerAndFee = (partner << 96) | (capSurplus << 9) | (partnerTakesSurplus << 8) | feeBps
///      (feeBps above 200 is rejected), charged only when partner != 0 and feeBps > 0:
///      - sell: cut from the destination the agent pays: the partner receives floor(agentAmount * feeBps / 10000),
///        the beneficiary the rest, and the rest must meet the minimum.
///      - buy: an extra floor(agentAmount * feeBps / 10000) of srcToken pulled from the owner to the partner;
///        agentAmount + fee must stay within the maximum.
///      The surplus flags are carried in the hash but unused: the agent pays exactly agentAmount, so there is no surplus.
///
///      Crosschain orders (bridge.destinationChainId != 0): the sandbox's bridge delivers the destination on the other
///      chain, so here only the source moves (owner to agent), with no destination check and no destination-side fee;
///      the agent's declared destination amount is reported in OrderSettled and OrderBridged is emitted.
///
///      Native asset (0xEeee…EEeE): as a source it is taken from the owner's deposit here (`deposit`, "dETH") and sent
///      to the agent as ETH; as a destination the agent sends it with the call and this contract forwards it.
contract DeltaSettlement {
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    uint256 internal constant MAX_FEE_BPS = 200;
    uint256 internal constant BPS = 10_000;
    uint8 internal constant SELL = 0;
    uint8 internal constant BUY = 1;
    uint256 internal constant MIN_TWAP_SLICES = 2;
    uint256 internal constant MIN_TWAP_INTERVAL = 60;

    struct TwapState {
        uint32 slicesFilled;
        uint64 lastSliceAt;
    }

    /// @dev One fill as it will move, kept in memory to stay clear of stack limits.
    struct Fill {
        bytes32 orderHash;
        address owner;
        address beneficiary;
        address srcToken;
        address destToken;
        /// The agent, or the handler of an external order.
        address srcRecipient;
        address partner;
        /// 0 when there is no partner.
        uint256 feeBps;
        /// Source moved from the owner to srcRecipient in this fill, fee excluded.
        uint256 srcAmount;
        /// Destination delivered to the beneficiary in this fill, fee excluded.
        uint256 destAmount;
        /// Partner fee: destination token on a sell, source token on a buy.
        uint256 fee;
        bool isSell;
        bool crosschain;
        /// The order's signed source amount and deadline, for a Permit2 signature transfer.
        uint256 signedSrcAmount;
        uint256 deadline;
    }

    bool private initialized;
    address public admin;
    bool private transient locked;

    mapping(address => bool) public isAgent;
    /// @notice Filled part of a standard or external order, by order hash: source units for a sell, destination for a buy.
    mapping(bytes32 => uint256) public filledAmount;
    mapping(address => mapping(bytes32 => bool)) public isCancelled;
    mapping(address => uint256) public nativeBalanceOf;
    mapping(bytes32 => TwapState) public twapState;

    event OrderSettled(
        bytes32 indexed orderHash,
        address indexed owner,
        address indexed agent,
        address srcToken,
        address destToken,
        uint256 srcAmount,
        uint256 destAmount,
        address beneficiary
    );
    event TwapSliceSettled(bytes32 indexed orderHash, uint256 sliceIndex, uint256 srcAmount, uint256 destAmount);
    event OrderBridged(
        bytes32 indexed orderHash,
        uint256 destinationChainId,
        address outputToken,
        bytes4 protocolSelector,
        uint256 srcAmount
    );
    event OrderCancelled(bytes32 indexed orderHash, address indexed owner);
    event NativeDeposited(address indexed owner, uint256 amount);
    event NativeWithdrawn(address indexed owner, uint256 amount);
    event AgentUpdated(address indexed agent, bool allowed);

    error AlreadyInitialized();
    error NotAdmin();
    error NotAgent();
    error Reentrancy();
    error InvalidSignature();
    error InvalidOrderKind(uint8 kind);
    error InvalidFillAmount();
    error OrderExpired();
    error OrderIsCancelled();
    error OrderAlreadyFilled();
    error OrderOverfilled();
    error FeeTooHigh();
    /// @param provided What the beneficiary would receive: the agent amount after the partner fee.
    error InsufficientDestAmount(uint256 required, uint256 provided);
    /// @param requested The agent amount plus the partner fee.
    error ExcessiveSrcAmount(uint256 allowed, uint256 requested);
    error InvalidPermitLength(uint256 length);
    error PermitNotAllowedForPartialFill();
    error InvalidTwapParams();
    error TwapIntervalNotElapsed(uint256 nextSliceAt);
    error TwapCompleted();
    error InsufficientNativeBalance(uint256 available, uint256 required);
    error InvalidNativeValue(uint256 expected, uint256 received);

    modifier onlyAgent() {
        if (!isAgent[msg.sender]) revert NotAgent();
        _;
    }

    modifier nonReentrant() {
        if (locked) revert Reentrancy();
        locked = true;
        _;
        locked = false;
    }

    // ---------------------------------------------------------------- setup

    function initialize(address admin_) external {
        if (initialized) revert AlreadyInitialized();
        initialized = true;
        admin = admin_;
    }

    function setAgent(address agent, bool allowed) external {
        if (msg.sender != admin) revert NotAdmin();
        isAgent[agent] = allowed;
        emit AgentUpdated(agent, allowed);
    }

    // ---------------------------------------------------------------- EIP-712

    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return DeltaHashing.domainSeparator();
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
        return (hex"0f", "Portikus", "2.0.0", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @notice Full EIP-712 digest of an Order (the service's orderHash).
    function hashOrder(Order calldata order) public view returns (bytes32) {
        return DeltaHashing.digest(DeltaHashing.hashOrder(order));
    }

    function hashTwapOrder(TWAPOrder calldata order) public view returns (bytes32) {
        return DeltaHashing.digest(DeltaHashing.hashTwapOrder(order));
    }

    function hashTwapBuyOrder(TWAPBuyOrder calldata order) public view returns (bytes32) {
        return DeltaHashing.digest(DeltaHashing.hashTwapBuyOrder(order));
    }

    function hashExternalOrder(ExternalOrder calldata order) public view returns (bytes32) {
        return DeltaHashing.digest(DeltaHashing.hashExternalOrder(order));
    }

    function hashOrderCancellations(string[] calldata orderIds) external view returns (bytes32) {
        return DeltaHashing.digest(DeltaHashing.hashOrderCancellations(orderIds));
    }

    // ---------------------------------------------------------------- settlement

    /// @notice Settles `fillAmount` of an order (all of it, or part of it) from the agent's inventory.
    /// @param fillAmount Sell: part of srcAmount filled. Buy: part of destAmount delivered.
    /// @param agentAmount Sell: destToken the agent pays (fee included). Buy: srcToken the agent takes (fee excluded).
    /// @dev A permit is used on the first fill only; later fills rely on the allowance it left. A 96-byte Permit2
    ///      signature transfer can be used once, so it requires a full fill.
    function settleOrder(Order calldata order, bytes calldata signature, uint256 fillAmount, uint256 agentAmount)
        external
        payable
        onlyAgent
        nonReentrant
    {
        bytes32 orderHash = hashOrder(order);
        _checkKind(order.kind);
        _checkPermitLength(order.permit.length);
        _checkOrder(order.owner, orderHash, order.deadline, order.partnerAndFee);
        uint256 total = order.kind == SELL ? order.srcAmount : order.destAmount;
        bool firstFill = _recordFill(orderHash, total, fillAmount) == 0;
        if (order.permit.length == DeltaPermits.PERMIT2_TRANSFER && fillAmount != total) {
            revert PermitNotAllowedForPartialFill();
        }
        _checkSignature(order.owner, orderHash, signature);

        Fill memory fill =
            _newFill(orderHash, order.owner, order.beneficiary, order.srcToken, order.destToken, order.partnerAndFee);
        fill.crosschain = order.bridge.destinationChainId != 0;
        fill.signedSrcAmount = order.srcAmount;
        fill.deadline = order.deadline;
        if (order.kind == SELL) {
            _limitSell(fill, fillAmount, agentAmount, _ceilDiv(order.destAmount * fillAmount, order.srcAmount));
        } else {
            _limitBuy(fill, fillAmount, agentAmount, order.srcAmount * fillAmount / order.destAmount);
        }
        if (firstFill) _applyPermit(fill, order.permit);
        _move(fill, order.permit);
        _emitSettled(fill);
        if (fill.crosschain) _emitBridged(orderHash, order.bridge, fill.srcAmount);
    }

    /// @notice Settles the next slice of a sell TWAP: floor(totalSrcAmount / numSlices) of source (the last slice also
    ///         takes the remainder), for at least destAmountPerSlice to the beneficiary after the fee.
    function settleTwapSlice(TWAPOrder calldata order, bytes calldata signature, uint256 agentAmount)
        external
        payable
        onlyAgent
        nonReentrant
    {
        bytes32 orderHash = hashTwapOrder(order);
        _checkTwapPermit(order.permit.length);
        _checkOrder(order.owner, orderHash, order.deadline, order.partnerAndFee);
        (uint256 sliceIndex, bool lastSlice) = _advanceTwap(orderHash, order.numSlices, order.interval);
        _checkSignature(order.owner, orderHash, signature);

        Fill memory fill =
            _newFill(orderHash, order.owner, order.beneficiary, order.srcToken, order.destToken, order.partnerAndFee);
        fill.crosschain = order.bridge.destinationChainId != 0;
        _limitSell(
            fill, _sliceOf(order.totalSrcAmount, order.numSlices, lastSlice), agentAmount, order.destAmountPerSlice
        );
        _move(fill, order.permit);
        _emitSettled(fill);
        emit TwapSliceSettled(orderHash, sliceIndex, fill.srcAmount, fill.destAmount);
        if (fill.crosschain) _emitBridged(orderHash, order.bridge, fill.srcAmount);
    }

    /// @notice Settles the next slice of a buy TWAP: floor(totalDestAmount / numSlices) delivered (the last slice also
    ///         carries the remainder) for at most the same slicing of maxSrcAmount, fee included.
    function settleTwapBuySlice(TWAPBuyOrder calldata order, bytes calldata signature, uint256 agentAmount)
        external
        payable
        onlyAgent
        nonReentrant
    {
        bytes32 orderHash = hashTwapBuyOrder(order);
        _checkTwapPermit(order.permit.length);
        _checkOrder(order.owner, orderHash, order.deadline, order.partnerAndFee);
        (uint256 sliceIndex, bool lastSlice) = _advanceTwap(orderHash, order.numSlices, order.interval);
        _checkSignature(order.owner, orderHash, signature);

        Fill memory fill =
            _newFill(orderHash, order.owner, order.beneficiary, order.srcToken, order.destToken, order.partnerAndFee);
        fill.crosschain = order.bridge.destinationChainId != 0;
        _limitBuy(
            fill,
            _sliceOf(order.totalDestAmount, order.numSlices, lastSlice),
            agentAmount,
            _sliceOf(order.maxSrcAmount, order.numSlices, lastSlice)
        );
        _move(fill, order.permit);
        _emitSettled(fill);
        emit TwapSliceSettled(orderHash, sliceIndex, fill.srcAmount, fill.destAmount);
        if (fill.crosschain) _emitBridged(orderHash, order.bridge, fill.srcAmount);
    }

    /// @notice Settles an external order in full: the source goes from the owner to `handler`, the destination from the
    ///         agent to the owner, under the same sell/buy limits and partner fee as a standard order.
    function settleExternalOrder(ExternalOrder calldata order, bytes calldata signature, uint256 agentAmount)
        external
        payable
        onlyAgent
        nonReentrant
    {
        bytes32 orderHash = hashExternalOrder(order);
        _checkKind(order.kind);
        _checkPermitLength(order.permit.length);
        _checkOrder(order.owner, orderHash, order.deadline, order.partnerAndFee);
        uint256 total = order.kind == SELL ? order.srcAmount : order.destAmount;
        _recordFill(orderHash, total, total);
        _checkSignature(order.owner, orderHash, signature);

        Fill memory fill = _newFill(orderHash, order.owner, order.owner, order.srcToken, order.destToken, order.partnerAndFee);
        fill.srcRecipient = order.handler;
        fill.signedSrcAmount = order.srcAmount;
        fill.deadline = order.deadline;
        if (order.kind == SELL) _limitSell(fill, order.srcAmount, agentAmount, order.destAmount);
        else _limitBuy(fill, order.destAmount, agentAmount, order.srcAmount);
        _applyPermit(fill, order.permit);
        _move(fill, order.permit);
        _emitSettled(fill);
    }

    // ---------------------------------------------------------------- owner controls

    /// @notice Cancels orders of msg.sender by hash; settling them afterwards reverts with OrderIsCancelled.
    function cancelOrders(bytes32[] calldata orderHashes) external {
        _cancel(orderHashes);
    }

    function cancelAndWithdraw(bytes32[] calldata orderHashes, uint256 nativeAmount) external nonReentrant {
        _cancel(orderHashes);
        if (nativeAmount > 0) _withdraw(nativeAmount);
    }

    /// @notice Deposits native asset to be used as the source of native-sell orders.
    function deposit() external payable {
        nativeBalanceOf[msg.sender] += msg.value;
        emit NativeDeposited(msg.sender, msg.value);
    }

    function withdraw(uint256 amount) external nonReentrant {
        _withdraw(amount);
    }

    // ---------------------------------------------------------------- checks

    function _checkKind(uint8 kind) private pure {
        if (kind != SELL && kind != BUY) revert InvalidOrderKind(kind);
    }

    function _checkPermitLength(uint256 length) private pure {
        if (!DeltaPermits.isKnownLength(length)) revert InvalidPermitLength(length);
    }

    /// @dev TWAP orders settle over time, so only an on-chain approval or an existing Permit2 allowance works.
    function _checkTwapPermit(uint256 length) private pure {
        if (length != 0 && length != DeltaPermits.PERMIT2_APPROVED) revert PermitNotAllowedForPartialFill();
    }

    function _checkOrder(address owner, bytes32 orderHash, uint256 deadline, uint256 partnerAndFee) private view {
        if ((partnerAndFee & 0xff) > MAX_FEE_BPS) revert FeeTooHigh();
        if (block.timestamp > deadline) revert OrderExpired();
        if (isCancelled[owner][orderHash]) revert OrderIsCancelled();
    }

    /// @dev EOA owners sign in 65- or 64-byte (ERC-2098) form; an owner with code is asked through EIP-1271.
    function _checkSignature(address owner, bytes32 digest, bytes calldata signature) private view {
        if (owner.code.length == 0 && signature.length != 64 && signature.length != 65) revert InvalidSignature();
        if (!SignatureChecker.isValid(owner, digest, signature)) revert InvalidSignature();
    }

    /// @dev Adds `fillAmount` to the order's filled amount; returns what was filled before.
    function _recordFill(bytes32 orderHash, uint256 total, uint256 fillAmount) private returns (uint256 previous) {
        if (fillAmount == 0) revert InvalidFillAmount();
        previous = filledAmount[orderHash];
        if (total != 0 && previous >= total) revert OrderAlreadyFilled();
        if (fillAmount > total - previous) revert OrderOverfilled();
        filledAmount[orderHash] = previous + fillAmount;
    }

    /// @dev Checks the TWAP parameters and pacing, then counts the slice; returns its 0-based index.
    function _advanceTwap(bytes32 orderHash, uint32 numSlices, uint64 interval)
        private
        returns (uint256 sliceIndex, bool lastSlice)
    {
        if (numSlices < MIN_TWAP_SLICES || interval < MIN_TWAP_INTERVAL) revert InvalidTwapParams();
        TwapState memory state = twapState[orderHash];
        if (state.slicesFilled >= numSlices) revert TwapCompleted();
        if (state.slicesFilled > 0) {
            uint256 nextSliceAt = uint256(state.lastSliceAt) + interval;
            if (block.timestamp < nextSliceAt) revert TwapIntervalNotElapsed(nextSliceAt);
        }
        sliceIndex = state.slicesFilled;
        lastSlice = sliceIndex + 1 == numSlices;
        twapState[orderHash] = TwapState(uint32(sliceIndex + 1), uint64(block.timestamp));
    }

    // ---------------------------------------------------------------- amounts

    function _newFill(
        bytes32 orderHash,
        address owner,
        address beneficiary,
        address srcToken,
        address destToken,
        uint256 partnerAndFee
    ) private view returns (Fill memory fill) {
        fill.orderHash = orderHash;
        fill.owner = owner;
        fill.beneficiary = beneficiary == address(0) ? owner : beneficiary;
        fill.srcToken = srcToken;
        fill.destToken = destToken;
        fill.srcRecipient = msg.sender;
        fill.partner = address(uint160(partnerAndFee >> 96));
        fill.feeBps = fill.partner == address(0) ? 0 : partnerAndFee & 0xff;
    }

    /// @dev Sell: `srcAmount` moves; of `agentAmount` the partner takes the fee and the beneficiary must get `minDest`.
    function _limitSell(Fill memory fill, uint256 srcAmount, uint256 agentAmount, uint256 minDest) private pure {
        fill.isSell = true;
        fill.srcAmount = srcAmount;
        if (fill.crosschain) {
            // Delivered by the bridge on the destination chain: the declared amount is only reported.
            fill.destAmount = agentAmount;
            return;
        }
        fill.fee = agentAmount * fill.feeBps / BPS;
        fill.destAmount = agentAmount - fill.fee;
        if (fill.destAmount < minDest) revert InsufficientDestAmount(minDest, fill.destAmount);
    }

    /// @dev Buy: `destAmount` is delivered; `agentAmount` plus the fee must not exceed `maxSrc`.
    function _limitBuy(Fill memory fill, uint256 destAmount, uint256 agentAmount, uint256 maxSrc) private pure {
        fill.destAmount = destAmount;
        fill.srcAmount = agentAmount;
        fill.fee = agentAmount * fill.feeBps / BPS;
        if (agentAmount + fill.fee > maxSrc) revert ExcessiveSrcAmount(maxSrc, agentAmount + fill.fee);
    }

    function _sliceOf(uint256 total, uint32 numSlices, bool lastSlice) private pure returns (uint256) {
        return total / numSlices + (lastSlice ? total % numSlices : 0);
    }

    function _ceilDiv(uint256 a, uint256 b) private pure returns (uint256) {
        return a == 0 ? 0 : (a - 1) / b + 1;
    }

    // ---------------------------------------------------------------- token movements

    function _applyPermit(Fill memory fill, bytes calldata permit) private {
        if (fill.srcToken != NATIVE) DeltaPermits.tryApply(fill.srcToken, fill.owner, permit);
    }

    function _move(Fill memory fill, bytes calldata permit) private {
        uint256 nativeDue = 0;
        if (!fill.crosschain && fill.destToken == NATIVE) nativeDue = fill.destAmount + (fill.isSell ? fill.fee : 0);
        if (msg.value != nativeDue) revert InvalidNativeValue(nativeDue, msg.value);
        _collectSource(fill, permit);
        if (!fill.crosschain) _deliverDestination(fill);
    }

    /// @dev Owner -> srcRecipient, plus the buy-side fee owner -> partner.
    function _collectSource(Fill memory fill, bytes calldata permit) private {
        uint256 buyFee = fill.isSell ? 0 : fill.fee;
        if (fill.srcToken == NATIVE) {
            _debitNative(fill.owner, fill.srcAmount + buyFee);
            SafeTransfer.safeTransferNative(fill.srcRecipient, fill.srcAmount);
            if (buyFee > 0) SafeTransfer.safeTransferNative(fill.partner, buyFee);
        } else if (permit.length == DeltaPermits.PERMIT2_TRANSFER) {
            // One signature transfer per order: with a fee, the source passes through this contract.
            if (buyFee == 0) {
                _signatureTransfer(fill, permit, fill.srcRecipient, fill.srcAmount);
            } else {
                _signatureTransfer(fill, permit, address(this), fill.srcAmount + buyFee);
                SafeTransfer.safeTransfer(fill.srcToken, fill.srcRecipient, fill.srcAmount);
                SafeTransfer.safeTransfer(fill.srcToken, fill.partner, buyFee);
            }
        } else {
            _pull(fill.srcToken, fill.owner, fill.srcRecipient, fill.srcAmount, permit.length);
            if (buyFee > 0) _pull(fill.srcToken, fill.owner, fill.partner, buyFee, permit.length);
        }
    }

    /// @dev Agent -> beneficiary, plus the sell-side fee agent -> partner; native comes with the call.
    function _deliverDestination(Fill memory fill) private {
        uint256 sellFee = fill.isSell ? fill.fee : 0;
        if (fill.destToken == NATIVE) {
            if (sellFee > 0) SafeTransfer.safeTransferNative(fill.partner, sellFee);
            SafeTransfer.safeTransferNative(fill.beneficiary, fill.destAmount);
        } else {
            if (sellFee > 0) SafeTransfer.safeTransferFrom(fill.destToken, msg.sender, fill.partner, sellFee);
            SafeTransfer.safeTransferFrom(fill.destToken, msg.sender, fill.beneficiary, fill.destAmount);
        }
    }

    function _pull(address token, address from, address to, uint256 amount, uint256 permitLength) private {
        if (DeltaPermits.usesPermit2Allowance(permitLength)) DeltaPermits.permit2TransferFrom(token, from, to, amount);
        else SafeTransfer.safeTransferFrom(token, from, to, amount);
    }

    function _signatureTransfer(Fill memory fill, bytes calldata permit, address to, uint256 amount) private {
        DeltaPermits.permit2SignatureTransfer(
            DeltaPermits.SignatureTransfer(fill.srcToken, fill.owner, fill.signedSrcAmount, fill.deadline, to, amount),
            permit
        );
    }

    function _debitNative(address owner, uint256 amount) private {
        uint256 available = nativeBalanceOf[owner];
        if (available < amount) revert InsufficientNativeBalance(available, amount);
        nativeBalanceOf[owner] = available - amount;
    }

    function _withdraw(uint256 amount) private {
        _debitNative(msg.sender, amount);
        SafeTransfer.safeTransferNative(msg.sender, amount);
        emit NativeWithdrawn(msg.sender, amount);
    }

    function _cancel(bytes32[] calldata orderHashes) private {
        for (uint256 i = 0; i < orderHashes.length; ++i) {
            isCancelled[msg.sender][orderHashes[i]] = true;
            emit OrderCancelled(orderHashes[i], msg.sender);
        }
    }

    // ---------------------------------------------------------------- events

    function _emitSettled(Fill memory fill) private {
        emit OrderSettled(
            fill.orderHash,
            fill.owner,
            msg.sender,
            fill.srcToken,
            fill.destToken,
            fill.srcAmount,
            fill.destAmount,
            fill.beneficiary
        );
    }

    function _emitBridged(bytes32 orderHash, Bridge calldata bridge, uint256 srcAmount) private {
        emit OrderBridged(orderHash, bridge.destinationChainId, bridge.outputToken, bridge.protocolSelector, srcAmount);
    }
}
