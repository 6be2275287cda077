import { defineApiErrors } from '../server/api-error.js'

const prices = 'GET /prices'
const transactions = 'POST /transactions/:chainId'

/** Every error the Market endpoints answer with; messages start with the text the API document quotes. */
export const marketErrors = defineApiErrors({
  invalidSrcToken: {
    endpoint: prices,
    status: 400,
    message: 'Invalid srcToken',
    cause: 'Native ETH sent as 0x0 or as the lowercase placeholder, or a route token that does not match srcToken.',
    fix: 'Use the mixed-case placeholder 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE.',
  },
  invalidDestToken: {
    endpoint: prices,
    status: 400,
    message: 'Invalid destToken',
    cause: 'Native ETH sent as 0x0 or as the lowercase placeholder, or a route token that does not match destToken.',
    fix: 'Use the mixed-case placeholder 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE.',
  },
  unsupportedChain: {
    endpoint: prices,
    status: 422,
    message: 'Unsupported chain',
    cause: 'network is not one of the chains this sandbox runs.',
    fix: 'GET /chains lists the running chains.',
  },
  tokenNotSupported: {
    endpoint: prices,
    status: 400,
    message: 'Token not supported',
    cause: 'The token address or symbol is not listed on that network.',
    fix: 'GET /tokens/{network} lists the tradable tokens.',
  },
  invalidDecimals: {
    endpoint: prices,
    status: 400,
    message: 'Invalid decimals',
    cause: 'srcDecimals / destDecimals missing for a token address the network does not list, or different from the token’s decimals.',
    fix: 'Send the token’s decimals (they may be omitted for a listed token or a symbol).',
  },
  invalidTokens: {
    endpoint: prices,
    status: 400,
    message: 'Invalid tokens',
    cause: 'srcToken and destToken are the same token.',
    fix: 'Pick two different tokens.',
  },
  invalidRoute: {
    endpoint: prices,
    status: 400,
    message: 'Invalid route',
    cause: 'The route parameter has more than 4 tokens, fewer than 2, or does not start at srcToken and end at destToken.',
    fix: 'Send dash-separated tokens from srcToken to destToken, at most 4.',
  },
  invalidDex: {
    endpoint: prices,
    status: 400,
    message: 'Invalid DEX',
    cause: 'includeDEXS names an exchange the sandbox does not have.',
    fix: 'Use SandboxPool30 (0.30 % pools), SandboxPool5 (0.05 % pools) or AugustusRFQ (market makers).',
  },
  noRoutes: {
    endpoint: prices,
    status: 400,
    message: 'No routes found with enough liquidity',
    cause: 'No pool path fills the amount (too large for the pools, or filtered away by route / DEX / contract-method options).',
    fix: 'Reduce the amount or relax the filters.',
  },
  badUsdPrice: {
    endpoint: prices,
    status: 400,
    message: 'Bad USD Price',
    cause: 'A token has no USD price in the sandbox pools.',
    fix: 'Pass ignoreBadUsdPrice=true.',
  },
  invalidPriceRoute: {
    endpoint: transactions,
    status: 400,
    message: 'Invalid priceRoute',
    cause: 'The priceRoute differs from what GET /prices returned (a value, a type, the key order or the hmac changed).',
    fix: 'Pass the priceRoute from GET /prices verbatim.',
  },
  stalePriceRoute: {
    endpoint: transactions,
    status: 400,
    message: 'Stale priceRoute',
    cause: 'More than 30 sandbox seconds passed between the quote and the build.',
    fix: 'Re-quote and build at once.',
  },
  rfqQuoteFailed: {
    endpoint: transactions,
    status: 400,
    message: 'Stale priceRoute',
    cause:
      "The route's market-maker liquidity (exchange AugustusRFQ) can no longer be built: the maker's firm quote failed, timed out, was invalid or worse than the route, or the maker refuses this user. The maker leaves routing until its prices recover.",
    fix: 'Re-quote with GET /prices (the new route avoids that maker) and build at once.',
  },
  chainMismatch: {
    endpoint: transactions,
    status: 400,
    message: 'Invalid chainId',
    cause: 'The path chainId differs from priceRoute.network.',
    fix: 'Take the chainId from priceRoute.network.',
  },
  legacyRoute: {
    endpoint: transactions,
    status: 400,
    message: 'Unsupported priceRoute version',
    cause: 'The route was priced for the legacy v5 router (GET /prices without version=6.2); the sandbox executes only v6.2 routes.',
    fix: 'Call GET /prices with version=6.2.',
  },
  invalidTransactionToken: {
    endpoint: transactions,
    status: 400,
    message: 'Invalid token',
    cause: 'srcToken / destToken (or their decimals) differ from the priceRoute.',
    fix: 'Send the tokens of the priceRoute.',
  },
  invalidAmounts: {
    endpoint: transactions,
    status: 400,
    message: 'Invalid amounts',
    cause: 'The fixed amount differs from the priceRoute, or neither the other amount nor slippage was given, or both were.',
    fix: 'SELL: srcAmount plus destAmount or slippage. BUY: destAmount plus srcAmount or slippage.',
  },
  invalidDeadline: {
    endpoint: transactions,
    status: 400,
    message: 'Invalid deadline',
    cause: 'deadline is already in the past (sandbox time).',
    fix: 'Send a future unix time, or omit it.',
  },
  partnerNotAllowed: {
    endpoint: transactions,
    status: 422,
    message: 'Partner not allowed',
    cause:
      'Partner fee or surplus options were sent with the anonymous partner, or a fee or collected surplus without partnerAddress to pay it to.',
    fix: 'Send your partner name, with partnerAddress for partnerFeeBps or takeSurplus; or drop those options.',
  },
  permitNotSupported: {
    endpoint: transactions,
    status: 400,
    message: 'Permit not supported',
    cause:
      'A payload of no known length, a permit for a native source, or a Permit2 signature transfer (96 bytes) for a BUY from a market maker.',
    fix: 'Send an EIP-2612 (224 bytes) or DAI-style (256 bytes) permit, or a Permit2 payload (1, 96 or 192 bytes), for the router; or approve the router.',
  },
  invalidPermit: {
    endpoint: transactions,
    status: 400,
    message: 'Invalid permit',
    cause:
      'The permit is not by userAddress, not to the Market router, or the token or Permit2 rejected it (signature, nonce, deadline, amount); a Permit2 signature transfer without the body’s deadline.',
    fix: 'Sign a fresh permit of the source token (or Permit2 payload) for the router 0x6a000f20005980200259b80c5102003040001068.',
  },
  insufficientBalance: {
    endpoint: transactions,
    status: 400,
    message: 'Not enough balance',
    cause: 'userAddress holds less of the source token (or ETH) than the swap needs.',
    fix: 'Fund the account, or build with ignoreChecks=true.',
  },
  insufficientAllowance: {
    endpoint: transactions,
    status: 400,
    message: 'Not enough allowance',
    cause:
      'userAddress has not approved the Market router v6.2 for the source amount (with a Permit2 payload: Permit2, or its Permit2 allowance to the router is short or expired).',
    fix: 'approve(0x6a000f20005980200259b80c5102003040001068, amount) on the source token first (with Permit2: approve Permit2 0x000000000022D473030F116dDEE9F6B43aC78BA3).',
  },
  simulationFailed: {
    endpoint: transactions,
    status: 400,
    message: 'This transaction has some errors and may fail. Please contact support for more details',
    cause: 'The built transaction reverts when simulated from userAddress (the message ends with the revert reason).',
    fix: 'Re-quote, widen slippage, or check balance and allowance.',
  },
  swapNeedsVersion62: {
    endpoint: 'GET /swap',
    status: 400,
    message: 'Unsupported version',
    cause: 'GET /swap was called without version=6.2; the sandbox builds only v6.2 calldata.',
    fix: 'Pass version=6.2.',
  },
})
