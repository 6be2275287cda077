import {
  type Address,
  domainSeparator,
  encodeFunctionData,
  type Hex,
  maxUint160,
  maxUint256,
  parseSignature,
  serializeCompactSignature,
  signatureToCompactSignature,
  slice,
} from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { permit2Address } from '../../src/protocol/addresses.js'
import { buildPermitSingleTypedData, buildPermitTransferFromTypedData, getPermit2Domain } from '../../src/protocol/permit2.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { placeContract } from '../../src/sandbox/chains/place-contract.js'
import { labelAddress, useTestChain } from '../helpers/chain.js'
import { bindContract } from '../helpers/contract.js'
import { useSnapshotPerTest } from '../helpers/snapshot.js'

const PERMIT2: Address = permit2Address
const [minterKey, aliceKey, bobKey, relayerKey, walletSignerKey] = developmentAccounts
if (!minterKey || !aliceKey || !bobKey || !relayerKey || !walletSignerKey) throw new Error('anvil development accounts missing')
const minter = minterKey.address
const alice = privateKeyToAccount(aliceKey.privateKey)
/** The spender in most tests. */
const bob = privateKeyToAccount(bobKey.privateKey)
/** An account with tokens but no ERC-20 approval of Permit2. */
const relayer = relayerKey.address
const walletSigner = privateKeyToAccount(walletSignerKey.privateKey)
const carol = labelAddress('permit2.carol')

type PermitSingle = {
  details: { token: Address; amount: bigint; expiration: number; nonce: number }
  spender: Address
  sigDeadline: bigint
}

type PermitTransferFrom = { permitted: { token: Address; amount: bigint }; nonce: bigint; deadline: bigint }

const toCompact = (signature: Hex): Hex => serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)))

describe('Permit2', () => {
  const chain = useTestChain()
  const permit2 = bindContract(chain, 'Permit2', PERMIT2)
  const token = bindContract(chain, 'SandboxToken', labelAddress('permit2.token'))
  const usdt = bindContract(chain, 'UsdtStyleToken', labelAddress('permit2.usdt'))
  const wallet = bindContract(chain, 'Eip1271Wallet', labelAddress('permit2.wallet'))

  const domain = () => getPermit2Domain(chain().chain.id)
  const latestTimestamp = async () => (await chain().publicClient.getBlock()).timestamp

  const signPermitSingle = (signer: PrivateKeyAccount, message: PermitSingle) =>
    signer.signTypedData(
      buildPermitSingleTypedData({
        chainId: chain().chain.id,
        ...message.details,
        expiration: BigInt(message.details.expiration),
        nonce: BigInt(message.details.nonce),
        spender: message.spender,
        sigDeadline: message.sigDeadline,
      }),
    )

  const signPermitTransferFrom = (signer: PrivateKeyAccount, permit: PermitTransferFrom, spender: Address) =>
    signer.signTypedData(
      buildPermitTransferFromTypedData({
        chainId: chain().chain.id,
        ...permit.permitted,
        spender,
        nonce: permit.nonce,
        deadline: permit.deadline,
      }),
    )

  /** A permit of 100 tokens from alice to bob with nonce 0, valid for an hour. */
  const permitSingleFor = async (overrides: Partial<PermitSingle['details']> = {}, sigDeadlineOffset = 3_600n): Promise<PermitSingle> => {
    const now = await latestTimestamp()
    return {
      details: { token: token.address, amount: 100n, expiration: Number(now + 86_400n), nonce: 0, ...overrides },
      spender: bob.address,
      sigDeadline: now + sigDeadlineOffset,
    }
  }

  const transferPermitFor = async (nonce: bigint, deadlineOffset = 3_600n): Promise<PermitTransferFrom> => ({
    permitted: { token: token.address, amount: 100n },
    nonce,
    deadline: (await latestTimestamp()) + deadlineOffset,
  })

  beforeAll(async () => {
    await placeContract(chain(), { name: 'Permit2', address: PERMIT2 })
    await chain().place('SandboxToken', 'permit2.token')
    await chain().place('UsdtStyleToken', 'permit2.usdt')
    await chain().place('Eip1271Wallet', 'permit2.wallet')
    await token.send(minter, 'initialize', ['Sandbox Token', 'SBX', 18, '1', minter])
    await usdt.send(minter, 'initialize', ['Tether USD', 'USDT', 6, minter])
    await wallet.send(minter, 'initialize', [walletSigner.address])
    for (const holder of [alice.address, relayer, wallet.address]) {
      await token.send(minter, 'mint', [holder, 1_000n])
      await usdt.send(minter, 'mint', [holder, 1_000n])
    }
    await token.send(alice.address, 'approve', [PERMIT2, maxUint256])
    await usdt.send(alice.address, 'approve', [PERMIT2, maxUint256])
    const approvePermit2 = encodeFunctionData({ abi: token.abi, functionName: 'approve', args: [PERMIT2, maxUint256] })
    await wallet.send(walletSigner.address, 'execute', [token.address, 0n, approvePermit2])
  })
  useSnapshotPerTest(chain)

  it('computes DOMAIN_SEPARATOR from the name "Permit2", the chain id and its address, without a version', async () => {
    expect(await permit2.read('DOMAIN_SEPARATOR')).toBe(domainSeparator({ domain: domain() }))
  })

  describe('approve', () => {
    it('stores the amount and expiration and emits Approval', async () => {
      const receipt = await permit2.send(alice.address, 'approve', [token.address, bob.address, 300n, 2_000_000_000])
      expect(await permit2.read('allowance', [alice.address, token.address, bob.address])).toEqual([300n, 2_000_000_000, 0])
      expect(permit2.events(receipt, 'Approval')[0]?.args).toEqual({
        owner: alice.address,
        token: token.address,
        spender: bob.address,
        amount: 300n,
        expiration: 2_000_000_000,
      })
    })

    it('stores the block timestamp when the expiration is 0', async () => {
      const receipt = await permit2.send(alice.address, 'approve', [token.address, bob.address, 300n, 0])
      const block = await chain().publicClient.getBlock({ blockNumber: receipt.blockNumber })
      expect(await permit2.read('allowance', [alice.address, token.address, bob.address])).toEqual([300n, Number(block.timestamp), 0])
    })
  })

  describe('permit', () => {
    it('sets the allowance, increments the nonce and emits Permit for a 65-byte signature', async () => {
      const permitSingle = await permitSingleFor()
      const signature = await signPermitSingle(alice, permitSingle)
      const receipt = await permit2.send(relayer, 'permit', [alice.address, permitSingle, signature])
      expect(await permit2.read('allowance', [alice.address, token.address, bob.address])).toEqual([
        100n,
        permitSingle.details.expiration,
        1,
      ])
      expect(permit2.events(receipt, 'Permit')[0]?.args).toMatchObject({ owner: alice.address, spender: bob.address, nonce: 0 })
    })

    it('accepts a 64-byte compact signature', async () => {
      const permitSingle = await permitSingleFor()
      const signature = toCompact(await signPermitSingle(alice, permitSingle))
      await permit2.send(relayer, 'permit', [alice.address, permitSingle, signature])
      expect(await permit2.read('allowance', [alice.address, token.address, bob.address])).toEqual([
        100n,
        permitSingle.details.expiration,
        1,
      ])
    })

    it('accepts an EIP-1271 owner whose wallet validates the signature', async () => {
      const permitSingle = await permitSingleFor()
      const signature = await signPermitSingle(walletSigner, permitSingle)
      await permit2.send(relayer, 'permit', [wallet.address, permitSingle, signature])
      await permit2.send(bob.address, 'transferFrom', [wallet.address, carol, 60n, token.address])
      expect(await token.read('balanceOf', [carol])).toBe(60n)
    })

    it('reverts InvalidSigner when the EIP-1271 wallet rejects the signature', async () => {
      const permitSingle = await permitSingleFor()
      const signature = await signPermitSingle(alice, permitSingle)
      const revert = await permit2.revert(relayer, 'permit', [wallet.address, permitSingle, signature])
      expect(revert.errorName).toBe('InvalidSigner')
    })

    it('reverts InvalidSigner when someone other than the owner signed', async () => {
      const permitSingle = await permitSingleFor()
      const signature = await signPermitSingle(bob, permitSingle)
      const revert = await permit2.revert(relayer, 'permit', [alice.address, permitSingle, signature])
      expect(revert.errorName).toBe('InvalidSigner')
    })

    it('reverts InvalidNonce when the signed nonce is not the stored one', async () => {
      const permitSingle = await permitSingleFor({ nonce: 1 })
      const signature = await signPermitSingle(alice, permitSingle)
      const revert = await permit2.revert(relayer, 'permit', [alice.address, permitSingle, signature])
      expect(revert.errorName).toBe('InvalidNonce')
    })

    it('reverts InvalidNonce when a used permit is replayed', async () => {
      const permitSingle = await permitSingleFor()
      const signature = await signPermitSingle(alice, permitSingle)
      await permit2.send(relayer, 'permit', [alice.address, permitSingle, signature])
      const revert = await permit2.revert(relayer, 'permit', [alice.address, permitSingle, signature])
      expect(revert.errorName).toBe('InvalidNonce')
    })

    it('reverts SignatureExpired when the signature deadline has passed', async () => {
      const permitSingle = await permitSingleFor({}, -1n)
      const signature = await signPermitSingle(alice, permitSingle)
      const revert = await permit2.revert(relayer, 'permit', [alice.address, permitSingle, signature])
      expect(revert.errorName).toBe('SignatureExpired')
      expect(revert.args).toEqual([permitSingle.sigDeadline])
    })

    it('reverts InvalidSignatureLength when the signature is neither 64 nor 65 bytes', async () => {
      const permitSingle = await permitSingleFor()
      const signature = slice(await signPermitSingle(alice, permitSingle), 0, 63)
      const revert = await permit2.revert(relayer, 'permit', [alice.address, permitSingle, signature])
      expect(revert.errorName).toBe('InvalidSignatureLength')
      expect(revert.args).toEqual([63n])
    })
  })

  describe('transferFrom', () => {
    it('moves a USDT-style token and decrements the allowance', async () => {
      await permit2.send(alice.address, 'approve', [usdt.address, bob.address, 300n, 2_000_000_000])
      await permit2.send(bob.address, 'transferFrom', [alice.address, carol, 100n, usdt.address])
      expect(await usdt.read('balanceOf', [carol])).toBe(100n)
      expect(await usdt.read('balanceOf', [alice.address])).toBe(900n)
      expect(await permit2.read('allowance', [alice.address, usdt.address, bob.address])).toEqual([200n, 2_000_000_000, 0])
    })

    it('keeps a max-uint160 allowance untouched', async () => {
      await permit2.send(alice.address, 'approve', [token.address, bob.address, maxUint160, 2_000_000_000])
      await permit2.send(bob.address, 'transferFrom', [alice.address, carol, 100n, token.address])
      expect(await permit2.read('allowance', [alice.address, token.address, bob.address])).toEqual([maxUint160, 2_000_000_000, 0])
    })

    it('reverts AllowanceExpired when the expiration has passed', async () => {
      const expiration = Number((await latestTimestamp()) - 1n)
      await permit2.send(alice.address, 'approve', [token.address, bob.address, 300n, expiration])
      const revert = await permit2.revert(bob.address, 'transferFrom', [alice.address, carol, 1n, token.address])
      expect(revert.errorName).toBe('AllowanceExpired')
      expect(revert.args).toEqual([BigInt(expiration)])
    })

    it('reverts AllowanceExpired when no allowance was ever given', async () => {
      const revert = await permit2.revert(bob.address, 'transferFrom', [alice.address, carol, 1n, token.address])
      expect(revert.errorName).toBe('AllowanceExpired')
      expect(revert.args).toEqual([0n])
    })

    it('reverts InsufficientAllowance when the amount exceeds the allowance', async () => {
      await permit2.send(alice.address, 'approve', [token.address, bob.address, 50n, 2_000_000_000])
      const revert = await permit2.revert(bob.address, 'transferFrom', [alice.address, carol, 51n, token.address])
      expect(revert.errorName).toBe('InsufficientAllowance')
      expect(revert.args).toEqual([50n])
    })

    it('reverts TransferFailed when the owner has not approved Permit2 on the token', async () => {
      await permit2.send(relayer, 'approve', [token.address, bob.address, 50n, 2_000_000_000])
      const revert = await permit2.revert(bob.address, 'transferFrom', [relayer, carol, 10n, token.address])
      expect(revert.errorName).toBe('TransferFailed')
    })
  })

  describe('invalidateNonces', () => {
    it('raises the nonce so permits signed below it fail with InvalidNonce', async () => {
      const receipt = await permit2.send(alice.address, 'invalidateNonces', [token.address, bob.address, 5])
      expect(await permit2.read('allowance', [alice.address, token.address, bob.address])).toEqual([0n, 0, 5])
      expect(permit2.events(receipt, 'NonceInvalidation')[0]?.args).toMatchObject({ newNonce: 5, oldNonce: 0 })
      const permitSingle = await permitSingleFor()
      const signature = await signPermitSingle(alice, permitSingle)
      expect((await permit2.revert(relayer, 'permit', [alice.address, permitSingle, signature])).errorName).toBe('InvalidNonce')
    })

    it('reverts InvalidNonce when the new nonce is not above the stored one', async () => {
      await permit2.send(alice.address, 'invalidateNonces', [token.address, bob.address, 5])
      const revert = await permit2.revert(alice.address, 'invalidateNonces', [token.address, bob.address, 5])
      expect(revert.errorName).toBe('InvalidNonce')
    })

    it('reverts ExcessiveInvalidation when skipping more than 65535 nonces', async () => {
      const revert = await permit2.revert(alice.address, 'invalidateNonces', [token.address, bob.address, 65_536])
      expect(revert.errorName).toBe('ExcessiveInvalidation')
    })
  })

  describe('permitTransferFrom', () => {
    it('moves the requested amount to the recipient and marks the nonce used', async () => {
      const permit = await transferPermitFor(7n)
      const signature = await signPermitTransferFrom(alice, permit, bob.address)
      await permit2.send(bob.address, 'permitTransferFrom', [permit, { to: carol, requestedAmount: 60n }, alice.address, signature])
      expect(await token.read('balanceOf', [carol])).toBe(60n)
      expect(await permit2.read('nonceBitmap', [alice.address, 0n])).toBe(1n << 7n)
    })

    it('stores nonce n in word n >> 8 at bit n & 255', async () => {
      const permit = await transferPermitFor((3n << 8n) | 200n)
      const signature = toCompact(await signPermitTransferFrom(alice, permit, bob.address))
      await permit2.send(bob.address, 'permitTransferFrom', [permit, { to: carol, requestedAmount: 1n }, alice.address, signature])
      expect(await permit2.read('nonceBitmap', [alice.address, 3n])).toBe(1n << 200n)
      expect(await permit2.read('nonceBitmap', [alice.address, 0n])).toBe(0n)
    })

    it('reverts InvalidNonce when the nonce was already used', async () => {
      const permit = await transferPermitFor(7n)
      const signature = await signPermitTransferFrom(alice, permit, bob.address)
      const args = [permit, { to: carol, requestedAmount: 60n }, alice.address, signature]
      await permit2.send(bob.address, 'permitTransferFrom', args)
      expect((await permit2.revert(bob.address, 'permitTransferFrom', args)).errorName).toBe('InvalidNonce')
    })

    it('reverts InvalidNonce when the owner invalidated the nonce', async () => {
      const receipt = await permit2.send(alice.address, 'invalidateUnorderedNonces', [0n, 1n << 7n])
      expect(permit2.events(receipt, 'UnorderedNonceInvalidation')[0]?.args).toEqual({ owner: alice.address, word: 0n, mask: 1n << 7n })
      const permit = await transferPermitFor(7n)
      const signature = await signPermitTransferFrom(alice, permit, bob.address)
      const revert = await permit2.revert(bob.address, 'permitTransferFrom', [
        permit,
        { to: carol, requestedAmount: 60n },
        alice.address,
        signature,
      ])
      expect(revert.errorName).toBe('InvalidNonce')
    })

    it('reverts SignatureExpired when the deadline has passed', async () => {
      const permit = await transferPermitFor(7n, -1n)
      const signature = await signPermitTransferFrom(alice, permit, bob.address)
      const revert = await permit2.revert(bob.address, 'permitTransferFrom', [
        permit,
        { to: carol, requestedAmount: 60n },
        alice.address,
        signature,
      ])
      expect(revert.errorName).toBe('SignatureExpired')
      expect(revert.args).toEqual([permit.deadline])
    })

    it('reverts InvalidAmount when more than the permitted amount is requested', async () => {
      const permit = await transferPermitFor(7n)
      const signature = await signPermitTransferFrom(alice, permit, bob.address)
      const revert = await permit2.revert(bob.address, 'permitTransferFrom', [
        permit,
        { to: carol, requestedAmount: 101n },
        alice.address,
        signature,
      ])
      expect(revert.errorName).toBe('InvalidAmount')
      expect(revert.args).toEqual([100n])
    })

    it('reverts InvalidSigner when submitted by a spender other than the signed one', async () => {
      const permit = await transferPermitFor(7n)
      const signature = await signPermitTransferFrom(alice, permit, bob.address)
      const revert = await permit2.revert(relayer, 'permitTransferFrom', [
        permit,
        { to: carol, requestedAmount: 60n },
        alice.address,
        signature,
      ])
      expect(revert.errorName).toBe('InvalidSigner')
    })
  })
})
