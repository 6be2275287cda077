import {
  type Address,
  domainSeparator,
  encodeFunctionData,
  type Hex,
  maxUint256,
  parseEther,
  parseSignature,
  serializeCompactSignature,
  signatureToCompactSignature,
  toFunctionSelector,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildDaiPermitTypedData, buildEip2612PermitTypedData } from '../../src/protocol/token-permits.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { labelAddress, useTestChain } from '../helpers/chain.js'
import { bindContract } from '../helpers/contract.js'
import { useSnapshotPerTest } from '../helpers/snapshot.js'

const PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const [minterKey, aliceKey, bobKey, relayerKey] = developmentAccounts
if (!minterKey || !aliceKey || !bobKey || !relayerKey) throw new Error('anvil development accounts missing')
const minter = minterKey.address
const alice = privateKeyToAccount(aliceKey.privateKey)
const bob = privateKeyToAccount(bobKey.privateKey)
/** Submits signed permits: anyone may. */
const relayer = relayerKey.address
const carol = labelAddress('tokens.carol')

/** Splits a 65-byte signature into the (v, r, s) arguments of an on-chain permit. */
function splitSignature(signature: Hex): [number, Hex, Hex] {
  const { r, s, yParity } = parseSignature(signature)
  return [yParity + 27, r, s]
}

describe('sandbox tokens', () => {
  const chain = useTestChain()
  const token = bindContract(chain, 'SandboxToken', labelAddress('tokens.sandbox'))
  const permitOnly = bindContract(chain, 'PermitOnlyToken', labelAddress('tokens.permit-only'))
  const usdt = bindContract(chain, 'UsdtStyleToken', labelAddress('tokens.usdt'))
  const dai = bindContract(chain, 'DaiStyleToken', labelAddress('tokens.dai'))
  const weth = bindContract(chain, 'WrappedNative', labelAddress('tokens.weth'))
  const wallet = bindContract(chain, 'Eip1271Wallet', labelAddress('tokens.wallet'))

  const domainOf = (name: string, verifyingContract: Address) => ({ name, version: '1', chainId: chain().chain.id, verifyingContract })
  const latestTimestamp = async () => (await chain().publicClient.getBlock()).timestamp

  beforeAll(async () => {
    await chain().place('SandboxToken', 'tokens.sandbox')
    await chain().place('PermitOnlyToken', 'tokens.permit-only')
    await chain().place('UsdtStyleToken', 'tokens.usdt')
    await chain().place('DaiStyleToken', 'tokens.dai')
    await chain().place('WrappedNative', 'tokens.weth')
    await chain().place('Eip1271Wallet', 'tokens.wallet')
    await token.send(minter, 'initialize', ['Sandbox Token', 'SBX', 18, '1', minter])
    await permitOnly.send(minter, 'initialize', ['Permit Only', 'PRM', 18, '1', minter])
    await usdt.send(minter, 'initialize', ['Tether USD', 'USDT', 6, minter])
    await dai.send(minter, 'initialize', ['Dai Stablecoin', 'DAI', 18, '1', minter])
    await weth.send(minter, 'initialize', ['Wrapped Ether', 'WETH'])
    await wallet.send(minter, 'initialize', [bob.address])
    for (const contract of [token, permitOnly, usdt, dai]) await contract.send(minter, 'mint', [alice.address, 1_000n])
  })
  useSnapshotPerTest(chain)

  describe('SandboxToken', () => {
    const signPermit = async (value: bigint, deadline: bigint, nonce = 0n, signer = alice) =>
      signer.signTypedData(
        buildEip2612PermitTypedData({
          domain: domainOf('Sandbox Token', token.address),
          owner: alice.address,
          spender: bob.address,
          value,
          nonce,
          deadline,
        }),
      )

    it('reports the metadata it was initialised with', async () => {
      expect(await token.read('name')).toBe('Sandbox Token')
      expect(await token.read('symbol')).toBe('SBX')
      expect(await token.read('decimals')).toBe(18)
      expect(await token.read('version')).toBe('1')
      expect(await token.read('minter')).toBe(minter)
    })

    it('reverts AlreadyInitialized when initialised twice', async () => {
      const revert = await token.revert(minter, 'initialize', ['Other', 'OTH', 6, '2', bob.address])
      expect(revert.errorName).toBe('AlreadyInitialized')
    })

    it('mints to the recipient and raises the total supply when the minter calls mint', async () => {
      await token.send(minter, 'mint', [carol, 5n])
      expect(await token.read('balanceOf', [carol])).toBe(5n)
      expect(await token.read('totalSupply')).toBe(1_005n)
    })

    it('reverts NotMinter when someone else calls mint', async () => {
      const revert = await token.revert(alice.address, 'mint', [alice.address, 1n])
      expect(revert.errorName).toBe('NotMinter')
      expect(revert.args).toEqual([alice.address])
    })

    it('moves the balance and returns true on transfer', async () => {
      expect(await token.simulate(alice.address, 'transfer', [carol, 10n])).toBe(true)
      const receipt = await token.send(alice.address, 'transfer', [carol, 10n])
      expect(await token.read('balanceOf', [carol])).toBe(10n)
      expect(await token.read('balanceOf', [alice.address])).toBe(990n)
      expect(token.events(receipt, 'Transfer')[0]?.args).toEqual({ from: alice.address, to: carol, value: 10n })
    })

    it('reverts ERC20InsufficientBalance when transferring more than the balance', async () => {
      const revert = await token.revert(alice.address, 'transfer', [carol, 1_001n])
      expect(revert.errorName).toBe('ERC20InsufficientBalance')
      expect(revert.args).toEqual([alice.address, 1_000n, 1_001n])
    })

    it('spends the allowance on transferFrom', async () => {
      await token.send(alice.address, 'approve', [bob.address, 100n])
      await token.send(bob.address, 'transferFrom', [alice.address, carol, 40n])
      expect(await token.read('allowance', [alice.address, bob.address])).toBe(60n)
      expect(await token.read('balanceOf', [carol])).toBe(40n)
    })

    it('keeps a max-uint allowance untouched on transferFrom', async () => {
      await token.send(alice.address, 'approve', [bob.address, maxUint256])
      await token.send(bob.address, 'transferFrom', [alice.address, carol, 40n])
      expect(await token.read('allowance', [alice.address, bob.address])).toBe(maxUint256)
    })

    it('reverts ERC20InsufficientAllowance when transferFrom exceeds the allowance', async () => {
      await token.send(alice.address, 'approve', [bob.address, 10n])
      const revert = await token.revert(bob.address, 'transferFrom', [alice.address, carol, 11n])
      expect(revert.errorName).toBe('ERC20InsufficientAllowance')
      expect(revert.args).toEqual([bob.address, 10n, 11n])
    })

    it('computes DOMAIN_SEPARATOR from the current chain id and address', async () => {
      expect(await token.read('DOMAIN_SEPARATOR')).toBe(domainSeparator({ domain: domainOf('Sandbox Token', token.address) }))
    })

    it('describes its domain through eip712Domain', async () => {
      expect(await token.read('eip712Domain')).toEqual(['0x0f', 'Sandbox Token', '1', 31_337n, token.address, `0x${'0'.repeat(64)}`, []])
    })

    it('sets the allowance and bumps the nonce on a valid permit', async () => {
      const deadline = (await latestTimestamp()) + 3_600n
      const signature = await signPermit(500n, deadline)
      await token.send(relayer, 'permit', [alice.address, bob.address, 500n, deadline, ...splitSignature(signature)])
      expect(await token.read('allowance', [alice.address, bob.address])).toBe(500n)
      expect(await token.read('nonces', [alice.address])).toBe(1n)
    })

    it('reverts PermitExpired when the deadline has passed', async () => {
      const deadline = (await latestTimestamp()) - 1n
      const signature = await signPermit(500n, deadline)
      const revert = await token.revert(relayer, 'permit', [alice.address, bob.address, 500n, deadline, ...splitSignature(signature)])
      expect(revert.errorName).toBe('PermitExpired')
      expect(revert.args).toEqual([deadline])
    })

    it('reverts InvalidPermitSignature when someone other than the owner signed', async () => {
      const deadline = (await latestTimestamp()) + 3_600n
      const signature = await signPermit(500n, deadline, 0n, bob)
      const revert = await token.revert(relayer, 'permit', [alice.address, bob.address, 500n, deadline, ...splitSignature(signature)])
      expect(revert.errorName).toBe('InvalidPermitSignature')
    })

    it('reverts InvalidPermitSignature when a used permit is replayed', async () => {
      const deadline = (await latestTimestamp()) + 3_600n
      const permitArgs = [alice.address, bob.address, 500n, deadline, ...splitSignature(await signPermit(500n, deadline))]
      await token.send(relayer, 'permit', permitArgs)
      const revert = await token.revert(relayer, 'permit', permitArgs)
      expect(revert.errorName).toBe('InvalidPermitSignature')
    })
  })

  describe('PermitOnlyToken', () => {
    it('reverts ApproveDisabled when approving any spender but Permit2', async () => {
      const revert = await permitOnly.revert(alice.address, 'approve', [bob.address, 1n])
      expect(revert.errorName).toBe('ApproveDisabled')
    })

    it('accepts an approval of Permit2', async () => {
      await permitOnly.send(alice.address, 'approve', [PERMIT2, maxUint256])
      expect(await permitOnly.read('allowance', [alice.address, PERMIT2])).toBe(maxUint256)
    })

    it('accepts an EIP-2612 permit for any spender', async () => {
      const deadline = (await latestTimestamp()) + 3_600n
      const signature = await alice.signTypedData(
        buildEip2612PermitTypedData({
          domain: domainOf('Permit Only', permitOnly.address),
          owner: alice.address,
          spender: bob.address,
          value: 7n,
          nonce: 0n,
          deadline,
        }),
      )
      await permitOnly.send(relayer, 'permit', [alice.address, bob.address, 7n, deadline, ...splitSignature(signature)])
      await permitOnly.send(bob.address, 'transferFrom', [alice.address, carol, 7n])
      expect(await permitOnly.read('balanceOf', [carol])).toBe(7n)
    })
  })

  describe('UsdtStyleToken', () => {
    it('returns no data from transfer', async () => {
      const data = encodeFunctionData({ abi: usdt.abi, functionName: 'transfer', args: [carol, 1n] })
      const result = await chain().publicClient.call({ account: alice.address, to: usdt.address, data })
      expect(result.data).toBeUndefined()
      await usdt.send(alice.address, 'transfer', [carol, 1n])
      expect(await usdt.read('balanceOf', [carol])).toBe(1n)
    })

    it('reverts ApproveFromNonZero when changing one non-zero allowance into another', async () => {
      await usdt.send(alice.address, 'approve', [bob.address, 5n])
      const revert = await usdt.revert(alice.address, 'approve', [bob.address, 6n])
      expect(revert.errorName).toBe('ApproveFromNonZero')
      expect(revert.args).toEqual([5n])
    })

    it('accepts a new allowance after approving 0 first', async () => {
      await usdt.send(alice.address, 'approve', [bob.address, 5n])
      await usdt.send(alice.address, 'approve', [bob.address, 0n])
      await usdt.send(alice.address, 'approve', [bob.address, 6n])
      expect(await usdt.read('allowance', [alice.address, bob.address])).toBe(6n)
    })

    it('spends the allowance on transferFrom', async () => {
      await usdt.send(alice.address, 'approve', [bob.address, 5n])
      await usdt.send(bob.address, 'transferFrom', [alice.address, carol, 5n])
      expect(await usdt.read('balanceOf', [carol])).toBe(5n)
      expect(await usdt.read('allowance', [alice.address, bob.address])).toBe(0n)
    })

    it('reverts NotMinter when someone else calls mint', async () => {
      expect((await usdt.revert(bob.address, 'mint', [bob.address, 1n])).errorName).toBe('NotMinter')
    })
  })

  describe('DaiStyleToken', () => {
    const signDaiPermit = async (message: { nonce: bigint; expiry: bigint; allowed: boolean }, signer = alice) =>
      signer.signTypedData(
        buildDaiPermitTypedData({
          domain: domainOf('Dai Stablecoin', dai.address),
          holder: alice.address,
          spender: bob.address,
          ...message,
        }),
      )
    const permitArgs = (message: { nonce: bigint; expiry: bigint; allowed: boolean }, signature: Hex) => [
      alice.address,
      bob.address,
      message.nonce,
      message.expiry,
      message.allowed,
      ...splitSignature(signature),
    ]

    it('grants an infinite allowance when allowed is true', async () => {
      const message = { nonce: 0n, expiry: (await latestTimestamp()) + 3_600n, allowed: true }
      await dai.send(relayer, 'permit', permitArgs(message, await signDaiPermit(message)))
      expect(await dai.read('allowance', [alice.address, bob.address])).toBe(maxUint256)
      expect(await dai.read('nonces', [alice.address])).toBe(1n)
    })

    it('revokes the allowance when allowed is false', async () => {
      await dai.send(alice.address, 'approve', [bob.address, 50n])
      const message = { nonce: 0n, expiry: 0n, allowed: false }
      await dai.send(relayer, 'permit', permitArgs(message, await signDaiPermit(message)))
      expect(await dai.read('allowance', [alice.address, bob.address])).toBe(0n)
    })

    it('treats expiry 0 as never expiring', async () => {
      await chain().testClient.increaseTime({ seconds: 10 * 365 * 86_400 })
      await chain().testClient.mine({ blocks: 1 })
      const message = { nonce: 0n, expiry: 0n, allowed: true }
      await dai.send(relayer, 'permit', permitArgs(message, await signDaiPermit(message)))
      expect(await dai.read('allowance', [alice.address, bob.address])).toBe(maxUint256)
    })

    it('reverts PermitExpired when the expiry has passed', async () => {
      const message = { nonce: 0n, expiry: (await latestTimestamp()) - 1n, allowed: true }
      const revert = await dai.revert(relayer, 'permit', permitArgs(message, await signDaiPermit(message)))
      expect(revert.errorName).toBe('PermitExpired')
    })

    it('reverts InvalidNonce when the nonce is not the current one', async () => {
      const message = { nonce: 1n, expiry: 0n, allowed: true }
      const revert = await dai.revert(relayer, 'permit', permitArgs(message, await signDaiPermit(message)))
      expect(revert.errorName).toBe('InvalidNonce')
      expect(revert.args).toEqual([0n, 1n])
    })

    it('reverts InvalidPermitSignature when someone other than the holder signed', async () => {
      const message = { nonce: 0n, expiry: 0n, allowed: true }
      const revert = await dai.revert(relayer, 'permit', permitArgs(message, await signDaiPermit(message, bob)))
      expect(revert.errorName).toBe('InvalidPermitSignature')
    })

    it('computes DOMAIN_SEPARATOR with the name, version, chain id and address', async () => {
      expect(await dai.read('DOMAIN_SEPARATOR')).toBe(domainSeparator({ domain: domainOf('Dai Stablecoin', dai.address) }))
    })
  })

  describe('WrappedNative', () => {
    it('has 18 decimals', async () => {
      expect(await weth.read('decimals')).toBe(18)
    })

    it('mints wrapped tokens and emits Deposit on deposit', async () => {
      const receipt = await weth.send(alice.address, 'deposit', [], parseEther('2'))
      expect(await weth.read('balanceOf', [alice.address])).toBe(parseEther('2'))
      expect(await chain().publicClient.getBalance({ address: weth.address })).toBe(parseEther('2'))
      expect(weth.events(receipt, 'Deposit')[0]?.args).toEqual({ dst: alice.address, wad: parseEther('2') })
    })

    it('deposits a plain coin transfer', async () => {
      const { walletClient, publicClient } = chain()
      const hash = await walletClient.sendTransaction({ account: alice.address, chain: walletClient.chain, to: weth.address, value: 3n })
      await waitForLocalReceipt(publicClient, hash)
      expect(await weth.read('balanceOf', [alice.address])).toBe(3n)
    })

    it('burns wrapped tokens and returns the coin on withdraw', async () => {
      await weth.send(alice.address, 'deposit', [], parseEther('2'))
      await weth.send(alice.address, 'transfer', [carol, parseEther('1')])
      await chain().testClient.impersonateAccount({ address: carol })
      await chain().testClient.setBalance({ address: carol, value: parseEther('1') })
      const receipt = await weth.send(carol, 'withdraw', [parseEther('0.4')])
      const gas = receipt.gasUsed * receipt.effectiveGasPrice
      expect(await chain().publicClient.getBalance({ address: carol })).toBe(parseEther('1.4') - gas)
      expect(await weth.read('balanceOf', [carol])).toBe(parseEther('0.6'))
      expect(await weth.read('totalSupply')).toBe(parseEther('1.6'))
      expect(weth.events(receipt, 'Withdrawal')[0]?.args).toEqual({ src: carol, wad: parseEther('0.4') })
    })

    it('reverts ERC20InsufficientBalance when withdrawing more than the balance', async () => {
      await weth.send(alice.address, 'deposit', [], 5n)
      const revert = await weth.revert(alice.address, 'withdraw', [6n])
      expect(revert.errorName).toBe('ERC20InsufficientBalance')
    })

    it('reverts TransferFailed when the withdrawer refuses the coin', async () => {
      // The USDT-style token has no receive function, so the coin bounces.
      await chain().testClient.impersonateAccount({ address: usdt.address })
      await chain().testClient.setBalance({ address: usdt.address, value: parseEther('1') })
      await weth.send(usdt.address, 'deposit', [], 5n)
      expect((await weth.revert(usdt.address, 'withdraw', [5n])).errorName).toBe('TransferFailed')
    })

    it('reverts AlreadyInitialized when initialised twice', async () => {
      expect((await weth.revert(minter, 'initialize', ['W', 'W'])).errorName).toBe('AlreadyInitialized')
    })
  })

  describe('Eip1271Wallet', () => {
    const digest: Hex = `0x${'ab'.repeat(32)}`
    const MAGIC = '0x1626ba7e'

    it('returns the magic value for a 65-byte signature by its signer', async () => {
      const signature = await bob.sign({ hash: digest })
      expect(await wallet.read('isValidSignature', [digest, signature])).toBe(MAGIC)
    })

    it('returns the magic value for a 64-byte compact signature by its signer', async () => {
      const signature = serializeCompactSignature(signatureToCompactSignature(parseSignature(await bob.sign({ hash: digest }))))
      expect((signature.length - 2) / 2).toBe(64)
      expect(await wallet.read('isValidSignature', [digest, signature])).toBe(MAGIC)
    })

    it('returns 0xffffffff for a signature by someone else', async () => {
      const signature = await alice.sign({ hash: digest })
      expect(await wallet.read('isValidSignature', [digest, signature])).toBe('0xffffffff')
    })

    it('returns 0xffffffff for a signature of the wrong length', async () => {
      expect(await wallet.read('isValidSignature', [digest, '0x1234'])).toBe('0xffffffff')
    })

    it('lets its signer call other contracts through execute', async () => {
      const data = encodeFunctionData({ abi: token.abi, functionName: 'approve', args: [carol, 9n] })
      await wallet.send(bob.address, 'execute', [token.address, 0n, data])
      expect(await token.read('allowance', [wallet.address, carol])).toBe(9n)
    })

    it('bubbles up the revert of the called contract', async () => {
      const data = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [carol, 1n] })
      const revert = await wallet.revert(bob.address, 'execute', [token.address, 0n, data])
      expect(revert.signature).toBe(toFunctionSelector('ERC20InsufficientBalance(address,uint256,uint256)'))
    })

    it('reverts NotSigner when someone else calls execute', async () => {
      const revert = await wallet.revert(alice.address, 'execute', [token.address, 0n, '0x'])
      expect(revert.errorName).toBe('NotSigner')
    })

    it('reverts AlreadyInitialized when initialised twice', async () => {
      expect((await wallet.revert(alice.address, 'initialize', [alice.address])).errorName).toBe('AlreadyInitialized')
    })

    it('reports its signer', async () => {
      expect(await wallet.read('signer')).toBe(bob.address)
    })
  })
})
