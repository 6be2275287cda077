import { defineApiErrors } from '../server/api-error.js'

const postOrder = 'POST /ft/p2p/{chainId}/'

/** Every error the OTC endpoints answer besides the common validation error. */
export const otcErrors = defineApiErrors({
  unsupportedChain: {
    endpoint: postOrder,
    status: 422,
    message: 'Unsupported chain',
    cause: 'chainId is not a chain this sandbox runs, so it has no RFQ contract to sign for.',
    fix: 'Use a chain id listed in /resources/contracts.json (augustusRFQ role).',
  },
  unsupportedChainFillableBalance: {
    endpoint: 'GET /ft/fillablebalance/{chainId}/{account}',
    status: 422,
    message: 'Unsupported chain',
    cause: 'chainId is not a chain this sandbox runs.',
    fix: 'Use a chain id listed in /resources/contracts.json.',
  },
  unsupportedChainList: {
    endpoint: 'GET /ft/p2p/{chainId}/maker/{account}, GET /ft/p2p/{chainId}/taker/{account}',
    status: 422,
    message: 'Unsupported chain',
    cause: 'chainId is not a chain this sandbox runs.',
    fix: 'Use a chain id listed in /resources/contracts.json.',
  },
  invalidSignature: {
    endpoint: postOrder,
    status: 400,
    message: 'Invalid signature',
    cause:
      'The signature does not recover to `maker` under the RFQ domain of this chain ("AUGUSTUS RFQ", version 1, chainId, ' +
      "verifyingContract = the chain's RFQ contract), the signed fields differ from the body, or the maker contract's " +
      'isValidSignature (EIP-1271) refused it. The message says which domain the signature fits when it fits another one.',
    fix: 'Sign the order exactly as posted with the domain of the chain in the path; send 65-byte or 64-byte (ERC-2098) EOA signatures.',
  },
  nativeMakerAsset: {
    endpoint: postOrder,
    status: 400,
    message: 'Invalid makerAsset',
    cause: 'makerAsset is the native-asset placeholder or the zero address; the RFQ contract moves ERC-20 tokens only.',
    fix: 'Wrap the native asset first (deposit into the wrapped-native token) and sign the order with the wrapped token.',
  },
  nativeTakerAsset: {
    endpoint: postOrder,
    status: 400,
    message: 'Invalid takerAsset',
    cause: 'takerAsset is the native-asset placeholder or the zero address; the RFQ contract moves ERC-20 tokens only.',
    fix: 'Ask for the wrapped-native token instead.',
  },
  makerAssetNotToken: {
    endpoint: postOrder,
    status: 400,
    message: 'Invalid makerAsset',
    cause: 'No ERC-20 token answers balanceOf / allowance at makerAsset on this chain.',
    fix: 'Use a token deployed on the chain (GET /tokens, or the addresses `deltaflow sandbox --json` prints).',
  },
  orderExpired: {
    endpoint: postOrder,
    status: 400,
    message: 'Order expired',
    cause: 'expiry (unix seconds) is already in the past on the sandbox clock.',
    fix: 'Sign a new order with a later expiry, or 0 for an order that never expires.',
  },
  orderNotFound: {
    endpoint: 'GET /ft/order/{orderHash}',
    status: 404,
    message: 'Order not found',
    cause: 'No OTC order with this hash was posted to this sandbox run.',
    fix: 'Use the orderHash returned by POST /ft/p2p/{chainId}/ (the sandbox keeps orders in memory for one run).',
  },
})
