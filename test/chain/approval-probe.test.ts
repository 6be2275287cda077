import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { approvalProbeBytecode } from '../../src/chain/approval-probe.js'

describe('approvalProbeBytecode', () => {
  it('is ApprovalProbe.sol compiled with the settings its header names', () => {
    const require = createRequire(import.meta.url)
    const solc = require('solc') as { compile: (input: string) => string; version: () => string }
    expect(solc.version()).toMatch(/^0\.8\.37\+/)
    const input = {
      language: 'Solidity',
      sources: { 'ApprovalProbe.sol': { content: readFileSync(new URL('../../src/chain/ApprovalProbe.sol', import.meta.url), 'utf8') } },
      settings: {
        optimizer: { enabled: true, runs: 200 },
        evmVersion: 'paris',
        metadata: { appendCBOR: false },
        outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
      },
    }
    const output = JSON.parse(solc.compile(JSON.stringify(input)))
    expect(output.errors ?? []).toEqual([])
    expect(`0x${output.contracts['ApprovalProbe.sol'].ApprovalProbe.evm.bytecode.object}`).toBe(approvalProbeBytecode)
  })
})
