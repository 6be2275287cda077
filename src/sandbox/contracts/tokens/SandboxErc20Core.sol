// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Storage and bookkeeping shared by the sandbox tokens. It exposes no transfer functions of its own, so a
///         token can choose bool-returning (standard) or void-returning (USDT-style) signatures.
/// @dev Placed with anvil_setCode: no constructor, no immutables; `_initializeToken` runs once from `initialize`.
abstract contract SandboxErc20Core {
    error AlreadyInitialized();
    error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);
    error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed);

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    bool private _initialized;
    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    function _initializeToken(string memory name_, string memory symbol_, uint8 decimals_) internal {
        if (_initialized) revert AlreadyInitialized();
        _initialized = true;
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    function _transfer(address from, address to, uint256 amount) internal {
        uint256 balance = balanceOf[from];
        if (balance < amount) revert ERC20InsufficientBalance(from, balance, amount);
        unchecked {
            balanceOf[from] = balance - amount;
            // Cannot overflow: the sum of all balances is totalSupply.
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }

    /// @dev An allowance of type(uint256).max is infinite and never decremented.
    function _spendAllowance(address owner, address spender, uint256 amount) internal {
        uint256 allowed = allowance[owner][spender];
        if (allowed == type(uint256).max) return;
        if (allowed < amount) revert ERC20InsufficientAllowance(spender, allowed, amount);
        unchecked {
            allowance[owner][spender] = allowed - amount;
        }
    }

    function _approve(address owner, address spender, uint256 amount) internal {
        allowance[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }

    function _mint(address to, uint256 amount) internal {
        totalSupply += amount;
        unchecked {
            balanceOf[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    function _burn(address from, uint256 amount) internal {
        uint256 balance = balanceOf[from];
        if (balance < amount) revert ERC20InsufficientBalance(from, balance, amount);
        unchecked {
            balanceOf[from] = balance - amount;
            totalSupply -= amount;
        }
        emit Transfer(from, address(0), amount);
    }
}

/// @notice Standard ERC-20 entry points returning bool.
abstract contract SandboxErc20 is SandboxErc20Core {
    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spendAllowance(from, msg.sender, amount);
        _transfer(from, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external virtual returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }
}

/// @notice A single minter, set at initialisation, may create tokens (the sandbox operator funds users this way).
abstract contract SandboxMintable is SandboxErc20Core {
    error NotMinter(address caller);

    address public minter;

    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        _mint(to, amount);
    }
}

/// @notice EIP-712 domain `EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)`,
///         told only through `DOMAIN_SEPARATOR()`, `name()` and `version()`, as mainnet DAI and USDC tell theirs: a
///         wallet rebuilds the domain from name and version and checks it against the separator. The separator is
///         computed on each use: there is no constructor to cache it in, and a forked chain id must never accept
///         signatures made for the other chain.
abstract contract SandboxEip712Token is SandboxErc20 {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    string public version;

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                DOMAIN_TYPEHASH, keccak256(bytes(_domainName())), keccak256(bytes(version)), block.chainid, address(this)
            )
        );
    }

    /// @dev The name signed into the domain: the ERC-20 name, unless a token keeps another one.
    function _domainName() internal view virtual returns (string memory) {
        return name;
    }

    function _hashTypedData(bytes32 structHash) internal view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", DOMAIN_SEPARATOR(), structHash));
    }
}

/// @notice Adds EIP-5267 discovery (`eip712Domain()`), as tokens built on recent OpenZeppelin releases have.
abstract contract SandboxEip5267Token is SandboxEip712Token {
    /// @notice EIP-5267: fields 0x0f = name, version, chainId, verifyingContract.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name_,
            string memory version_,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", _domainName(), version, block.chainid, address(this), bytes32(0), new uint256[](0));
    }
}
