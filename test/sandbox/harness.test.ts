import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { erc20Abi, formatUnits, getAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deltaAddress, marketRouterAddress, permit2Address, rfqAddresses } from '../../src/protocol/addresses.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { tokenCatalogue } from '../../src/sandbox/chains/catalogue.js'
import { type LocalChains, startLocalChains } from '../../src/sandbox/chains/harness.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { anvilPidsOnPort, waitForExit } from '../helpers/processes.js'

describe('startLocalChains', () => {
  let running: LocalChains
  beforeAll(async () => {
    running = await startLocalChains({ chainIds: [1, 8453] })
  })
  afterAll(async () => {
    await running?.stop()
  })

  it('runs one node per chain id, answering with that chain id', async () => {
    for (const chainId of [1, 8453]) {
      expect(await running.chain(chainId).clients.publicClient.getChainId()).toBe(chainId)
    }
  })

  it('places Delta, the Market router, Permit2 and the RFQ contract at their production addresses', async () => {
    for (const chainId of [1, 8453]) {
      const { publicClient } = running.chain(chainId).clients
      const expected = [
        [deltaAddress, 'DeltaSettlement'],
        [marketRouterAddress, 'MarketRouter'],
        [permit2Address, 'Permit2'],
        [rfqAddresses[chainId], 'RfqSettlement'],
      ] as const
      for (const [address, name] of expected) {
        expect(address).toBeDefined()
        expect(await publicClient.getCode({ address: address as `0x${string}` })).toBe(getContractArtifact(name).deployedBytecode)
      }
    }
  })

  it('deploys the tokens traders know with their real symbols, decimals and production addresses', async () => {
    const { publicClient } = running.chain(1).clients
    const usdc = running.chain(1).fixture.tokens.find((token) => token.symbol === 'USDC')
    expect(usdc?.address).toBe(getAddress('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'))
    for (const token of running.chain(8453).fixture.tokens) {
      const { publicClient: base } = running.chain(8453).clients
      expect(await base.readContract({ address: token.address, abi: erc20Abi, functionName: 'symbol' })).toBe(token.symbol)
      expect(await base.readContract({ address: token.address, abi: erc20Abi, functionName: 'decimals' })).toBe(token.decimals)
    }
    expect(await publicClient.readContract({ address: usdc?.address ?? '0x', abi: erc20Abi, functionName: 'decimals' })).toBe(6)
  })

  it('funds every development account with every token', async () => {
    const { publicClient } = running.chain(8453).clients
    for (const token of running.chain(8453).fixture.tokens) {
      const grant = tokenCatalogue.find((spec) => spec.symbol === token.symbol)?.grant
      for (const account of [developmentAccounts[0], developmentAccounts[9]]) {
        const balance = await publicClient.readContract({
          address: token.address,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [account?.address ?? '0x'],
        })
        expect(Number(formatUnits(balance, token.decimals))).toBe(grant)
      }
    }
  })

  it('seeds the pools at the reference prices', async () => {
    const { publicClient } = running.chain(1).clients
    const fixture = running.chain(1).fixture
    const pool = fixture.pools.find((candidate) => candidate.symbols.join('/') === 'WETH/USDC')
    const [wethReserve, usdcReserve] = (await publicClient.readContract({
      address: pool?.address ?? '0x',
      abi: getContractArtifact('ConstantProductPool').abi,
      functionName: 'getReserves',
    })) as readonly [bigint, bigint]
    const price = Number(formatUnits(usdcReserve, 6)) / Number(formatUnits(wethReserve, 18))
    expect(price).toBeCloseTo(1958.54, 1)
    expect(Number(formatUnits(usdcReserve, 6))).toBeCloseTo(20_000_000, -1)
  })
})

describe('startLocalChains on a chain without Delta', () => {
  it('leaves the Delta address empty on chain 100, as production does', async () => {
    const running = await startLocalChains({ chainIds: [100] })
    try {
      const { publicClient } = running.chain(100).clients
      expect(running.chain(100).fixture.contracts.delta).toBeUndefined()
      expect(await publicClient.getCode({ address: deltaAddress })).toBeUndefined()
      expect(await publicClient.getCode({ address: marketRouterAddress })).not.toBeUndefined()
    } finally {
      await running.stop()
    }
  })
})

describe('process lifetime', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url))

  it('stops every anvil process on stop()', async () => {
    const running = await startLocalChains({ chainIds: [1, 8453] })
    const ports = running.chains.map((chain) => Number(new URL(chain.rpcUrl).port))
    const pids = (await Promise.all(ports.map(anvilPidsOnPort))).flat()
    expect(pids).toHaveLength(2)
    await running.stop()
    await waitForExit(pids)
  })

  it('kills anvil when its owning process is killed with SIGKILL', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/anvil-child.ts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve))
      const { port } = JSON.parse(line) as { port: number }
      const pids = await anvilPidsOnPort(port)
      expect(pids).toHaveLength(1)
      child.kill('SIGKILL')
      await waitForExit(pids)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('`deltaflow chains up` prints the chains as JSON and exits 0 on SIGINT, leaving no node behind', async () => {
    const child = spawn(process.execPath, ['bin/deltaflow.js', 'chains', 'up', '--chains', '1', '--json'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve))
    const description = JSON.parse(line) as { chains: { chainId: number; rpcUrl: string; contracts: { delta: string } }[] }
    expect(description.chains[0]?.chainId).toBe(1)
    expect(description.chains[0]?.contracts.delta).toBe(deltaAddress)
    const pids = await anvilPidsOnPort(Number(new URL(description.chains[0]?.rpcUrl ?? '').port))
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    await waitForExit(pids)
  })
})
