// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeTransfer} from "./lib/SafeTransfer.sol";
import {SignatureChecker} from "./lib/SignatureChecker.sol";

/// @notice Permit2-compatible allowance and signature transfers, ABI-compatible with Uniswap's Permit2 for
///         approve / allowance / permit (single) / transferFrom (single) / invalidateNonces and
///         permitTransferFrom (single) / nonceBitmap / invalidateUnorderedNonces. Placed at
///         0x000000000022D473030F116dDEE9F6B43aC78BA3 with anvil_setCode; it has no state to initialise.
/// @dev Domain `EIP712Domain(string name,uint256 chainId,address verifyingContract)`, name "Permit2", no version.
contract Permit2 {
    struct PermitDetails {
        address token;
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    struct PermitSingle {
        PermitDetails details;
        address spender;
        uint256 sigDeadline;
    }

    struct PackedAllowance {
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Permit2");
    bytes32 private constant PERMIT_DETAILS_TYPEHASH =
        keccak256("PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)");
    bytes32 private constant PERMIT_SINGLE_TYPEHASH = keccak256(
        "PermitSingle(PermitDetails details,address spender,uint256 sigDeadline)PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)"
    );
    bytes32 private constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    // The signed type names the spender, which is not a field of the calldata struct: it is msg.sender.
    bytes32 private constant PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );

    error AllowanceExpired(uint256 deadline);
    error InsufficientAllowance(uint256 amount);
    error ExcessiveInvalidation();
    error SignatureExpired(uint256 signatureDeadline);
    error InvalidNonce();
    error InvalidAmount(uint256 maxAmount);
    error InvalidSigner();

    event Approval(
        address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration
    );
    event Permit(
        address indexed owner,
        address indexed token,
        address indexed spender,
        uint160 amount,
        uint48 expiration,
        uint48 nonce
    );
    event NonceInvalidation(
        address indexed owner, address indexed token, address indexed spender, uint48 newNonce, uint48 oldNonce
    );
    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    /// @notice owner => token => spender => (amount, expiration, nonce).
    mapping(address => mapping(address => mapping(address => PackedAllowance))) public allowance;

    /// @notice owner => word position => bitmap of used unordered nonces (word = nonce >> 8, bit = nonce & 255).
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, block.chainid, address(this)));
    }

    // ---- AllowanceTransfer ----

    /// @notice Sets the caller's allowance for `spender`; `expiration == 0` means "this block only".
    function approve(address token, address spender, uint160 amount, uint48 expiration) external {
        PackedAllowance storage allowed = allowance[msg.sender][token][spender];
        allowed.amount = amount;
        allowed.expiration = _effectiveExpiration(expiration);
        emit Approval(msg.sender, token, spender, amount, expiration);
    }

    /// @notice Sets an allowance from the owner's signature; the signed nonce must be the stored one.
    function permit(address owner, PermitSingle calldata permitSingle, bytes calldata signature) external {
        if (block.timestamp > permitSingle.sigDeadline) revert SignatureExpired(permitSingle.sigDeadline);
        _verify(owner, _hashTypedData(_hashPermitSingle(permitSingle)), signature);

        PermitDetails calldata details = permitSingle.details;
        PackedAllowance storage allowed = allowance[owner][details.token][permitSingle.spender];
        if (allowed.nonce != details.nonce) revert InvalidNonce();
        allowed.amount = details.amount;
        allowed.expiration = _effectiveExpiration(details.expiration);
        unchecked {
            // A uint48 nonce cannot realistically wrap.
            allowed.nonce = details.nonce + 1;
        }
        emit Permit(owner, details.token, permitSingle.spender, details.amount, details.expiration, details.nonce);
    }

    /// @notice Moves `amount` of `token` from `from` to `to` on the caller's allowance. An allowance of
    ///         type(uint160).max is not decremented.
    function transferFrom(address from, address to, uint160 amount, address token) external {
        PackedAllowance storage allowed = allowance[from][token][msg.sender];
        if (block.timestamp > allowed.expiration) revert AllowanceExpired(allowed.expiration);
        uint160 maxAmount = allowed.amount;
        if (maxAmount != type(uint160).max) {
            if (amount > maxAmount) revert InsufficientAllowance(maxAmount);
            unchecked {
                allowed.amount = maxAmount - amount;
            }
        }
        SafeTransfer.safeTransferFrom(token, from, to, amount);
    }

    /// @notice Raises the caller's nonce for (token, spender), invalidating signed permits below `newNonce`.
    function invalidateNonces(address token, address spender, uint48 newNonce) external {
        PackedAllowance storage allowed = allowance[msg.sender][token][spender];
        uint48 oldNonce = allowed.nonce;
        if (newNonce <= oldNonce) revert InvalidNonce();
        // Permit2 bounds one invalidation to 2**16 nonces.
        if (newNonce - oldNonce > type(uint16).max) revert ExcessiveInvalidation();
        allowed.nonce = newNonce;
        emit NonceInvalidation(msg.sender, token, spender, newNonce, oldNonce);
    }

    // ---- SignatureTransfer ----

    /// @notice One-shot transfer signed by `owner` for the caller (the spender) with an unordered nonce.
    function permitTransferFrom(
        PermitTransferFrom calldata transferPermit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        if (block.timestamp > transferPermit.deadline) revert SignatureExpired(transferPermit.deadline);
        uint256 maxAmount = transferPermit.permitted.amount;
        if (transferDetails.requestedAmount > maxAmount) revert InvalidAmount(maxAmount);
        _useUnorderedNonce(owner, transferPermit.nonce);
        _verify(owner, _hashTypedData(_hashPermitTransferFrom(transferPermit)), signature);
        address token = transferPermit.permitted.token;
        SafeTransfer.safeTransferFrom(token, owner, transferDetails.to, transferDetails.requestedAmount);
    }

    /// @notice Marks the bits of `mask` in the caller's word `wordPos` as used.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    // ---- internals ----

    function _effectiveExpiration(uint48 expiration) private view returns (uint48) {
        return expiration == 0 ? uint48(block.timestamp) : expiration;
    }

    function _useUnorderedNonce(address owner, uint256 nonce) private {
        uint256 bit = uint256(1) << (nonce & 255);
        uint256 word = nonceBitmap[owner][nonce >> 8];
        if (word & bit != 0) revert InvalidNonce();
        nonceBitmap[owner][nonce >> 8] = word | bit;
    }

    /// @dev 65-byte and 64-byte EOA signatures and EIP-1271 contract owners; a wrong length reverts with
    ///      SignatureChecker.InvalidSignatureLength.
    function _verify(address owner, bytes32 digest, bytes calldata signature) private view {
        if (!SignatureChecker.isValid(owner, digest, signature)) revert InvalidSigner();
    }

    function _hashPermitSingle(PermitSingle calldata permitSingle) private pure returns (bytes32) {
        PermitDetails calldata details = permitSingle.details;
        bytes32 detailsHash = keccak256(
            abi.encode(PERMIT_DETAILS_TYPEHASH, details.token, details.amount, details.expiration, details.nonce)
        );
        return keccak256(
            abi.encode(PERMIT_SINGLE_TYPEHASH, detailsHash, permitSingle.spender, permitSingle.sigDeadline)
        );
    }

    function _hashPermitTransferFrom(PermitTransferFrom calldata transferPermit) private view returns (bytes32) {
        TokenPermissions calldata permitted = transferPermit.permitted;
        bytes32 permittedHash = keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permitted.token, permitted.amount));
        return keccak256(
            abi.encode(
                PERMIT_TRANSFER_FROM_TYPEHASH, permittedHash, msg.sender, transferPermit.nonce, transferPermit.deadline
            )
        );
    }

    function _hashTypedData(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", DOMAIN_SEPARATOR(), structHash));
    }
}
