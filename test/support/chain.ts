/**
 * A real local EVM chain for payment tests: anvil (from @foundry-rs/anvil-linux-amd64) with Base
 * Sepolia's chain id, and an EIP-3009 token (test/support/contracts/TestUSDC.sol, OpenZeppelin's
 * draft-ERC3009, compiled with solc-js here) whose code is placed at Base Sepolia's USDC address,
 * so x402's default USDC prices work unchanged. Accounts are anvil's well-known dev keys.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Subprocess } from "bun";
import { http, type Hex, createPublicClient, createTestClient, createWalletClient, parseAbi, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { until } from "./until.ts";

export const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;
/** anvil's default dev accounts 0, 1, 2: settler (pays gas), payer, and the server's pay-to. */
export const SETTLER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as const;
export const PAYER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
export const PAY_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const;
/**
 * anvil's dev account 4, a second settler for a test file of its own: viem's nonce manager keeps a
 * settler's nonces per process, so a settler reused on a fresh anvil in the same run would send
 * nonces the new chain has not reached (its transactions wait forever).
 */
export const SECOND_SETTLER_KEY = "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a" as const;
/** anvil's dev account 5: the settler of a third test file (the remote facilitator's). */
export const THIRD_SETTLER_KEY = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba" as const;

const require = createRequire(import.meta.url);
const TOKEN_ABI = parseAbi([
  "function mint(address to, uint256 amount)",
  "function balanceOf(address) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
]);

let compiled: { abi: unknown[]; bytecode: Hex } | undefined;

/** Compiles TestUSDC with solc-js, resolving OpenZeppelin imports from node_modules (once per run). */
function compileToken(): { abi: unknown[]; bytecode: Hex } {
  if (compiled) return compiled;
  const solc = require("solc");
  const source = readFileSync(join(import.meta.dir, "contracts/TestUSDC.sol"), "utf8");
  const ozRoot = dirname(require.resolve("@openzeppelin/contracts/package.json"));
  const input = {
    language: "Solidity",
    sources: { "TestUSDC.sol": { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const findImports = (path: string) =>
    path.startsWith("@openzeppelin/contracts/")
      ? { contents: readFileSync(join(ozRoot, path.slice("@openzeppelin/contracts/".length)), "utf8") }
      : { error: `not found: ${path}` };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join("\n"));
  const contract = output.contracts["TestUSDC.sol"].TestUSDC;
  compiled = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` as Hex };
  return compiled;
}

export interface LocalChain {
  rpcUrl: string;
  balanceOf(address: string): Promise<bigint>;
  authorizationUsed(from: string, nonce: string): Promise<boolean>;
  mint(to: string, amount: bigint): Promise<void>;
  stop(): Promise<void>;
}

export async function startChain(): Promise<LocalChain> {
  const anvilBin = join(dirname(require.resolve("@foundry-rs/anvil-linux-amd64/package.json")), "bin/anvil");
  // Port 0: anvil takes a port from the OS and says which ("Listening on 127.0.0.1:<port>").
  const proc: Subprocess<"ignore", "pipe", "pipe"> = Bun.spawn([anvilBin, "--host", "127.0.0.1", "--port", "0", "--chain-id", String(baseSepolia.id)], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let said = "";
  // Read to the end: anvil logs every call, and a full pipe would stall it.
  void (async () => {
    for await (const chunk of proc.stdout) if (said.length < 100_000) said += new TextDecoder().decode(chunk);
  })();
  void (async () => {
    for await (const chunk of proc.stderr) if (said.length < 100_000) said += new TextDecoder().decode(chunk);
  })();
  const port = await until(
    "anvil to say where it listens",
    60_000,
    () => {
      if (proc.exitCode !== null) throw new Error(`anvil exited (${proc.exitCode}) before listening: ${said}`);
      return /Listening on 127\.0\.0\.1:(\d+)/.exec(said)?.[1];
    },
    { seen: () => said },
  );
  const rpcUrl = `http://127.0.0.1:${port}`;
  const transport = http(rpcUrl);
  const reader = createPublicClient({ chain: baseSepolia, transport });
  const { abi, bytecode } = compileToken();
  const deployer = createWalletClient({ account: privateKeyToAccount(SETTLER_KEY), chain: baseSepolia, transport }).extend(publicActions);
  const hash = await deployer.deployContract({ abi, bytecode });
  const receipt = await deployer.waitForTransactionReceipt({ hash });
  const code = await reader.getCode({ address: receipt.contractAddress! });
  await createTestClient({ chain: baseSepolia, mode: "anvil", transport }).setCode({ address: USDC, bytecode: code! });
  const mint = async (to: string, amount: bigint) => {
    const tx = await deployer.writeContract({ address: USDC, abi: TOKEN_ABI, functionName: "mint", args: [to as Hex, amount] });
    await deployer.waitForTransactionReceipt({ hash: tx });
  };
  return {
    rpcUrl,
    mint,
    balanceOf: (address) => reader.readContract({ address: USDC, abi: TOKEN_ABI, functionName: "balanceOf", args: [address as Hex] }),
    authorizationUsed: (from, nonce) => reader.readContract({ address: USDC, abi: TOKEN_ABI, functionName: "authorizationState", args: [from as Hex, nonce as Hex] }),
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
