import { z } from 'zod'
import { fillModelSchema } from '../backtest/fill-model.js'
import { riskLimitsSchema } from '../exec/risk/risk-limits-schema.js'
import { configNameSchema, configPathSchema, strategyReferenceSchema, tokenSymbolSchema } from './config-names.js'
import { notificationsConfigSchema } from './notifications-schema.js'
import { optimizeConfigSchema } from './optimize-schema.js'

const chainIdKey = z
  .string()
  .regex(/^\d+$/, 'expected a chain id such as 1 or 8453')
  .refine((key) => Number.isSafeInteger(Number(key)) && Number(key) > 0, 'expected a chain id from 1 to 2^53 - 1')

export const venueConfigSchema = z.strictObject({
  /** `sandbox` starts an embedded sandbox; otherwise the service's base URL. */
  url: z.union([z.literal('sandbox'), z.url({ protocol: /^https?$/ })]).default('sandbox'),
  apiKey: z.string().min(1).optional(),
  partner: configNameSchema.default('anon'),
  timeoutMs: z.number().int().positive().default(15_000),
  retries: z.number().int().min(0).max(10).default(3),
  requestsPerSecond: z.number().positive().default(10),
})

export const chainConfigSchema = z.strictObject({
  rpcUrls: z.array(z.url({ protocol: /^(https?|wss?)$/ })).min(1),
})

export const walletConfigSchema = z.strictObject({
  /** Encrypted JSON keystore (Web3 Secret Storage v3); its password comes from DELTAFLOW_KEYSTORE_PASSWORD. */
  keystore: configPathSchema.optional(),
  /** Environment variable holding a hex private key. */
  privateKeyEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name')
    .default('DELTAFLOW_PRIVATE_KEY'),
})

/** How the executor trades (section `executor`). */
export const executorConfigSchema = z.strictObject({
  /** Which mode keeps a near tie, and by how many bps the other must beat it. */
  preferMode: z.enum(['delta', 'market']).default('delta'),
  preferMarginBps: z.number().min(0).max(10_000).default(5),
  /** How Delta market orders get their allowance; LIMIT and TWAP orders always use an on-chain approval. */
  permitPreference: z.enum(['onchain', 'permit', 'permit2']).default('onchain'),
  /** `exact` covers the order and the account's other open orders of the token; `unlimited` grants the maximum once. */
  approvalPolicy: z.enum(['exact', 'unlimited']).default('exact'),
  /** Seconds a market-style Delta order stays open, and a Market transaction's deadline. */
  deltaValiditySeconds: z.number().int().min(60).default(600),
  marketValiditySeconds: z.number().int().min(60).default(300),
})

/** One strategy of the bot: which plugin, under which name, with its own config (checked by the plugin's schema). */
export const strategyEntrySchema = z.strictObject({
  /** Unique within the bot: intents, orders and state are journaled under it. */
  name: configNameSchema,
  /** A built-in strategy name, a file path, or an npm package. */
  use: strategyReferenceSchema,
  enabled: z.boolean().default(true),
  /** Passed to the plugin, which validates it. */
  config: z.record(z.string(), z.unknown()).default({}),
})

/** The kill switch of the risk section: a file whose presence, or a signal, stops new orders. */
export const killSwitchConfigSchema = z.strictObject({
  file: configPathSchema.optional(),
  signal: z.enum(['SIGUSR1', 'SIGUSR2', 'SIGHUP']).optional(),
  cancelOpenOrders: z.boolean().default(false),
})

/** The embedded sandbox of `paper` mode (section `sandbox`): how fast its time runs and what its market does. */
export const sandboxConfigSchema = z.strictObject({
  /** Time compression: 60 runs one sandbox minute per real second (TWAP intervals, expiries and bridges with it). */
  speed: z.number().positive().max(3_600).default(1),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .default(1),
  chains: z.array(z.number().int().positive()).min(1).default([1, 8453]),
  /** replay: real candle paths move the pools; still: pools move only when someone trades. */
  market: z.enum(['replay', 'still']).default('replay'),
  /** Which funded development account the bot trades from when no key is configured. */
  accountIndex: z.number().int().min(0).max(9).default(0),
})

/** Where the console's bearer token is read (section `ops.auth`): a file wins over the variable. */
export const opsAuthConfigSchema = z.strictObject({
  /** Default DELTAFLOW_OPS_TOKEN; a variable named here explicitly must be set. */
  tokenEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name')
    .optional(),
  /** A file holding the token (surrounding whitespace ignored). */
  tokenFile: configPathSchema.optional(),
})

/** The operations endpoint of `deltaflow run` (section `ops`): GET /metrics (Prometheus) and GET /health. */
export const opsConfigSchema = z.strictObject({
  /** Absent: no endpoint. 0 picks a free port (logged at startup). */
  port: z.number().int().min(0).max(65_535).optional(),
  host: z.string().min(1).default('127.0.0.1'),
  /** GET /health answers 503 once the venue or a chain has failed without one answer for longer than this, ms. */
  unhealthyAfterMs: z.number().int().min(100).default(60_000),
  /** The operator console under /api/ (reads, actions, live events; src/runtime/console). */
  console: z.boolean().default(false),
  /** The console's bearer token: required for every action, and for every /api/ request on a non-loopback host. */
  auth: opsAuthConfigSchema.default(opsAuthConfigSchema.parse({})),
  /** Console actions accepted per minute, all clients together; more are answered 429. */
  actionsPerMinute: z.number().int().min(1).max(10_000).default(60),
  /** What the console values PnL and equity in. */
  valuation: z
    .strictObject({
      /** `chainId:address` of the token; absent: the first USDC, USDT or DAI among the strategies' tokens. */
      token: z
        .string()
        .regex(/^\d+:0x[0-9a-fA-F]{40}$/, {
          error: (issue) =>
            `expected "chainId:address", e.g. "1:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"; received ${JSON.stringify(issue.input)}`,
        })
        .optional(),
    })
    .default({}),
})

const environmentVariableName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name')

/** Credentials of the maker server (section `maker.auth`): the service signs every request with them. */
export const makerAuthConfigSchema = z.strictObject({
  /** When on (default), every request must carry valid X-AUTH headers; a missing variable stops `deltaflow maker`. */
  enabled: z.boolean().default(true),
  domainEnv: environmentVariableName.default('DELTAFLOW_MAKER_DOMAIN'),
  accessKeyEnv: environmentVariableName.default('DELTAFLOW_MAKER_ACCESS_KEY'),
  secretEnv: environmentVariableName.default('DELTAFLOW_MAKER_SECRET'),
  /** A JSON file of `{ domain, accessKey, secret }` (or an array of them, one per domain), used instead of the variables. */
  credentialsFile: configPathSchema.optional(),
  /** How far a request's timestamp may be from the maker's clock. */
  toleranceMs: z.number().int().min(1_000).max(300_000).default(30_000),
})

/** `deltaflow maker` (section `maker`): the maker server, its strategy and the runtime's polls. */
export const makerConfigSchema = z.strictObject({
  /** Bind address of the maker server. */
  host: z.string().min(1).default('127.0.0.1'),
  /** 0 picks a free port (the ready line and the log give it). */
  port: z.number().int().min(0).max(65_535).default(0),
  /** The chains served, each under its own base path (the path is part of what the service signs). */
  chains: z
    .record(chainIdKey, z.strictObject({ basePath: z.string().regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'expected a path such as /maker/1') }))
    .refine((chains) => Object.keys(chains).length > 0, 'expected at least one chain, e.g. { "1": { basePath: /maker/1 } }'),
  auth: makerAuthConfigSchema.default(makerAuthConfigSchema.parse({})),
  /** Exact source IPs allowed beside authentication; absent: any. */
  allowIps: z.array(z.string().min(1)).optional(),
  bodyLimitBytes: z.number().int().min(1_024).max(1_048_576).default(16_384),
  requestTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** Lifetime of a firm order, seconds of the maker's clock (the document asks for at least two minutes). */
  firmExpirySeconds: z.number().int().min(120).max(86_400).default(180),
  /** The WebSocket channel at {basePath}/ws. */
  websocket: z.boolean().default(true),
  /** Register each chain's endpoint with the sandbox (POST /_sandbox/makers) so it routes through the maker. Default: true in paper mode. */
  registerWithSandbox: z.boolean().optional(),
  /** The maker's name at the sandbox. */
  name: configNameSchema.default('deltaflow-maker'),
  /** Real milliseconds between the runtime's polls. */
  intervals: z
    .strictObject({
      referenceMs: z.number().int().min(50).default(1_000),
      balanceMs: z.number().int().min(50).default(2_000),
      quoteMs: z.number().int().min(20).default(500),
      followMs: z.number().int().min(50).default(1_000),
    })
    .default({ referenceMs: 1_000, balanceMs: 2_000, quoteMs: 500, followMs: 1_000 }),
  /** The maker strategy: a built-in name (market-maker), a file path or an npm package, with its own config. */
  strategy: z.strictObject({ use: z.string().min(1), config: z.record(z.string(), z.unknown()).default({}) }),
})

/** The configuration shared by every command that touches the venue or the chains, and the bot's own sections. */
const tokenKey = z.string().regex(/^[1-9]\d*:0x[0-9a-fA-F]{40}$/, 'expected "chainId:tokenAddress"')

/** A token of the backtest's pair: its symbol for labels and its address on each chain that holds it. */
const pairTokenSchema = z.strictObject({
  symbol: tokenSymbolSchema,
  /** `"chainId:address"` of each deployment (USDC on chain 1 and on Base count as one quote token). */
  tokens: z.array(tokenKey).min(1),
})

/** `deltaflow backtest`: the wallet it starts with, the fill model, the seed and what results are valued in. */
export const backtestConfigSchema = z.strictObject({
  /** Starting balances, `"chainId:token"` → raw units (a decimal string). */
  balances: z.record(tokenKey, z.string().regex(/^\d+$/, 'expected raw units as a decimal string')).default({}),
  /** The fill model: `model: ideal | realistic` and its figures (src/backtest/README.md, "Fill model"). */
  fill: fillModelSchema.default(fillModelSchema.parse({})),
  /** Seeds the fill model's random draws (auction outcomes, bridge failures): the same seed repeats a run exactly. */
  seed: z.number().int().min(0).default(1),
  /** Prices are `quote` per `base`; default: the quote set's header (`base`, `quote`, `chainId`, `bridgeQuoteToken`). */
  pair: z.strictObject({ base: pairTokenSchema, quote: pairTokenSchema }).optional(),
  /** Points of the equity and price curves over the run. */
  samples: z.number().int().min(10).max(100_000).default(2_000),
  /** How the results' ratios are computed: the annual risk-free rate Sharpe and Sortino subtract (0.04 = 4 %). */
  metrics: z.strictObject({ riskFreeRate: z.number().min(-1).max(1).default(0) }).default({ riskFreeRate: 0 }),
})

export const deltaflowConfigSchema = z.strictObject({
  /** paper: the embedded sandbox; dry-run: real quotes, nothing signed; live: real orders (also needs --live). */
  mode: z.enum(['paper', 'dry-run', 'live']).default('paper'),
  venue: venueConfigSchema.default(venueConfigSchema.parse({})),
  chains: z.record(chainIdKey, chainConfigSchema).default({}),
  wallet: walletConfigSchema.default(walletConfigSchema.parse({})),
  /** SQLite journal file. */
  db: configPathSchema.optional(),
  risk: riskLimitsSchema.extend({ killSwitch: killSwitchConfigSchema.optional() }).default(riskLimitsSchema.parse({})),
  executor: executorConfigSchema.default(executorConfigSchema.parse({})),
  /** Milliseconds between two polls of one quote request. */
  feed: z.strictObject({ intervalMs: z.number().int().min(100).default(1_000) }).default({ intervalMs: 1_000 }),
  /** Milliseconds between two reconciliations of the journal with the venue and the chains. */
  reconcile: z.strictObject({ intervalMs: z.number().int().min(200).default(5_000) }).default({ intervalMs: 5_000 }),
  sandbox: sandboxConfigSchema.default(sandboxConfigSchema.parse({})),
  /** `deltaflow run` stops by itself after this many real seconds (as with --for); absent: until SIGINT / SIGTERM. */
  runForSeconds: z.number().positive().optional(),
  ops: opsConfigSchema.default(opsConfigSchema.parse({})),
  /** Webhook and Telegram targets told about fills, failures, pauses and more (src/runtime/notify). */
  notifications: notificationsConfigSchema.default(notificationsConfigSchema.parse({})),
  backtest: backtestConfigSchema.default(backtestConfigSchema.parse({})),
  /** `deltaflow optimize`: the parameter space, sampler, objective and walk-forward (optimize-schema.ts). */
  optimize: optimizeConfigSchema.optional(),
  /** `deltaflow maker`: absent in a bot's config. */
  maker: makerConfigSchema.optional(),
  strategies: z
    .array(strategyEntrySchema)
    .default([])
    .superRefine((entries, context) => {
      const seen = new Set<string>()
      entries.forEach((entry, index) => {
        if (seen.has(entry.name)) {
          context.addIssue({
            code: 'custom',
            message: `expected a unique strategy name, received "${entry.name}" twice`,
            path: [index, 'name'],
          })
        }
        seen.add(entry.name)
      })
    }),
})

/**
 * Keys an older configuration may hold, by dotted path, and where they are now: the loader's error for such a key
 * names its new place.
 */
export const renamedConfigKeys: Readonly<Record<string, string>> = {
  'backtest.fillModel': 'backtest.fill (the same figures, plus `model: ideal | realistic`)',
}

/**
 * The JSON Schema of the configuration for editors (`deltaflow schema > deltaflow.schema.json`): the input side, so
 * amounts written as strings and defaults left out are valid.
 */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(deltaflowConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
}

export type DeltaflowConfig = z.infer<typeof deltaflowConfigSchema>
export type DeltaflowConfigInput = z.input<typeof deltaflowConfigSchema>
