// SPDX-License-Identifier: MIT
// A USDC stand-in for tests on a local chain: ERC-20 with EIP-3009 (transferWithAuthorization),
// 6 decimals, the EIP-712 domain of Base Sepolia USDC ("USDC", "2"), and an open mint.
pragma solidity ^0.8.26;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ERC3009} from "@openzeppelin/contracts/token/ERC20/extensions/draft-ERC3009.sol";

contract TestUSDC is ERC20, EIP712, ERC3009 {
    constructor() ERC20("USDC", "USDC") EIP712("USDC", "2") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
