/**
 * A real local Solana for payment tests, the way anvil is for Base: litesvm (an in-process Solana VM
 * from npm, with the SPL token, associated token and memo programs) behind a small JSON-RPC server
 * on a private port, so the server's facilitator and the official x402 client reach it exactly as
 * they reach a Solana RPC node (getLatestBlockhash, getAccountInfo, simulateTransaction,
 * sendTransaction, getSignatureStatuses, balances). Transactions run in the VM for real: signatures
 * are verified, the token program moves the balances. Solana mainnet's USDC mint is placed at its
 * real address (6 decimals, our mint authority), so x402's default USDC prices work unchanged.
 */
import { none, some, type Address, type KeyPairSigner, address, createKeyPairSignerFromPrivateKeyBytes, getAddressEncoder, getBase58Decoder, getBase64Encoder, getTransactionDecoder, lamports } from "@solana/kit";
import { AccountState, TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getMintEncoder, getTokenDecoder, getTokenEncoder } from "@solana-program/token";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";

/** Solana mainnet's USDC mint (x402's default asset on solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp). */
export const SOLANA_USDC = address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
export const SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

/** Fixed seeds: the fee payer (the in-process facilitator's key), the payer, another payer, and the pay-to wallet. */
const seed = (n: number) => new Uint8Array(32).fill(n);
export const solanaKeys = {
  feePayer: () => createKeyPairSignerFromPrivateKeyBytes(seed(11)),
  payer: () => createKeyPairSignerFromPrivateKeyBytes(seed(12)),
  stranger: () => createKeyPairSignerFromPrivateKeyBytes(seed(13)),
  payTo: () => createKeyPairSignerFromPrivateKeyBytes(seed(14)),
};

/** A fee payer's key in solana-keygen's file format: a JSON array of the 64 bytes (seed, then public key). */
export function keygenFile(seedByte: number, signer: KeyPairSigner): string {
  return JSON.stringify([...seed(seedByte), ...getAddressEncoder().encode(signer.address)]);
}
export const FEE_PAYER_SEED = 11;

export interface LocalSolana {
  rpcUrl: string;
  /** USDC held by `owner` (its associated token account), in atomic units. */
  usdcOf(owner: Address): bigint;
  /** Gives `owner` a USDC account holding `amount` (atomic units). */
  fundUsdc(owner: Address, amount: bigint): Promise<void>;
  /** How many transactions the VM has executed successfully. */
  landed(): number;
  /** While on, getSignatureStatuses fails (an RPC node in trouble): confirmations cannot be read. */
  failStatuses(on: boolean): void;
  stop(): Promise<void>;
}

interface RpcError {
  code: number;
  message: string;
}

export async function startSolana(): Promise<LocalSolana> {
  const svm = new LiteSVM();
  const [feePayer, payTo] = await Promise.all([solanaKeys.feePayer(), solanaKeys.payTo()]);
  const ata = async (owner: Address) => (await findAssociatedTokenPda({ mint: SOLANA_USDC, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const mintAuthority = feePayer.address;
  svm.setAccount({
    address: SOLANA_USDC,
    data: new Uint8Array(getMintEncoder().encode({ mintAuthority: some(mintAuthority), supply: 10n ** 15n, decimals: 6, isInitialized: true, freezeAuthority: none() })),
    executable: false,
    lamports: lamports(svm.minimumBalanceForRentExemption(82n)),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    space: 82n,
  });
  svm.airdrop(feePayer.address, lamports(100_000_000_000n));

  const atas = new Map<string, Address>();
  const tokenAccount = (owner: Address): Address => {
    const found = atas.get(owner);
    if (!found) throw new Error(`no USDC account for ${owner}: fundUsdc first`);
    return found;
  };
  const setTokenAccount = (owner: Address, account: Address, amount: bigint) => {
    svm.setAccount({
      address: account,
      data: new Uint8Array(
        getTokenEncoder().encode({ mint: SOLANA_USDC, owner, amount, delegate: none(), state: AccountState.Initialized, isNative: none(), delegatedAmount: 0n, closeAuthority: none() }),
      ),
      executable: false,
      lamports: lamports(svm.minimumBalanceForRentExemption(165n)),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      space: 165n,
    });
  };
  const usdcOf = (owner: Address): bigint => {
    const account = svm.getAccount(tokenAccount(owner));
    return account.exists ? getTokenDecoder().decode(account.data).amount : 0n;
  };
  const fund = async (owner: Address, amount: bigint) => {
    const account = await ata(owner);
    atas.set(owner, account);
    setTokenAccount(owner, account, amount);
  };
  // The pay-to wallet's USDC account exists, empty: x402's exact scheme transfers into it.
  await fund(payTo.address, 0n);

  const statuses = new Map<string, { slot: number; err: unknown }>();
  let landed = 0;
  let statusesFail = false;
  const decodeTx = (base64: string) => getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const slot = () => Number(svm.getClock().slot);
  const context = () => ({ slot: slot(), apiVersion: "2.2.0" });
  const errOf = (failed: FailedTransactionMetadata) => ({ litesvm: failed.toString().slice(0, 500) });

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getLatestBlockhash: () => ({ context: context(), value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot() + 150 } }),
    getSlot: () => slot(),
    getBlockHeight: () => slot(),
    getBalance: ([who]) => ({ context: context(), value: Number(svm.getBalance(address(String(who))) ?? 0n) }),
    getMinimumBalanceForRentExemption: ([size]) => Number(svm.minimumBalanceForRentExemption(BigInt(Number(size)))),
    getAccountInfo: ([who]) => {
      const account = svm.getAccount(address(String(who)));
      if (!account.exists) return { context: context(), value: null };
      return {
        context: context(),
        value: {
          data: [Buffer.from(account.data).toString("base64"), "base64"],
          executable: account.executable,
          lamports: Number(account.lamports),
          owner: account.programAddress,
          rentEpoch: 0,
          space: Number(account.space),
        },
      };
    },
    getTokenAccountBalance: ([who]) => {
      const account = svm.getAccount(address(String(who)));
      if (!account.exists) throw { code: -32602, message: "Invalid param: could not find account" } satisfies RpcError;
      const amount = getTokenDecoder().decode(account.data).amount;
      return { context: context(), value: { amount: amount.toString(), decimals: 6, uiAmount: Number(amount) / 1e6, uiAmountString: (Number(amount) / 1e6).toString() } };
    },
    simulateTransaction: ([wire, config]) => {
      const options = (config ?? {}) as { sigVerify?: boolean };
      // The facilitator simulates before it signs as fee payer: signatures are checked only when asked.
      svm.withSigverify(options.sigVerify === true);
      try {
        const result = svm.simulateTransaction(decodeTx(String(wire)));
        const failed = result instanceof FailedTransactionMetadata;
        const meta = failed ? result.meta() : result.meta();
        return {
          context: context(),
          value: { err: failed ? errOf(result) : null, logs: meta.logs(), accounts: null, unitsConsumed: Number(meta.computeUnitsConsumed()), returnData: null, innerInstructions: null },
        };
      } finally {
        svm.withSigverify(true);
      }
    },
    sendTransaction: ([wire]) => {
      const tx = decodeTx(String(wire));
      const first = Object.values(tx.signatures)[0];
      if (!first) throw { code: -32602, message: "transaction has no signature" } satisfies RpcError;
      const signature = getBase58Decoder().decode(first);
      if (statuses.has(signature)) return signature; // a node keeps the first outcome of a signature
      const result = svm.sendTransaction(tx);
      if (result instanceof FailedTransactionMetadata) {
        // skipPreflight: a real node takes the transaction and reports its failure in its status.
        statuses.set(signature, { slot: slot(), err: errOf(result) });
      } else {
        statuses.set(signature, { slot: slot(), err: null });
        landed++;
      }
      svm.expireBlockhash(); // the next transaction gets a fresh blockhash, as blocks pass on a real chain
      return signature;
    },
    getSignatureStatuses: ([signatures]) => {
      if (statusesFail) throw { code: -32005, message: "Node is behind" } satisfies RpcError;
      return signatureStatuses(signatures as string[]);
    },
    getTransaction: () => null,
  };
  function signatureStatuses(signatures: string[]) {
    return {
      context: context(),
      value: signatures.map((s) => {
        const status = statuses.get(s);
        return status ? { slot: status.slot, confirmations: null, err: status.err, confirmationStatus: "finalized", status: status.err ? { Err: status.err } : { Ok: null } } : null;
      }),
    };
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const call = (await request.json()) as { id: unknown; method: string; params?: unknown[] };
      const method = methods[call.method];
      if (!method) return Response.json({ jsonrpc: "2.0", id: call.id, error: { code: -32601, message: `Method not found: ${call.method}` } });
      try {
        return Response.json({ jsonrpc: "2.0", id: call.id, result: method(call.params ?? []) });
      } catch (error) {
        const rpcError = error as Partial<RpcError>;
        return Response.json({ jsonrpc: "2.0", id: call.id, error: { code: rpcError.code ?? -32603, message: rpcError.message ?? String(error) } });
      }
    },
  });

  return {
    rpcUrl: `http://127.0.0.1:${server.port}`,
    usdcOf,
    fundUsdc: fund,
    landed: () => landed,
    failStatuses: (on) => {
      statusesFail = on;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}
