import { describe, expect, it } from 'vitest'
import { compareTypes, normaliseStruct, type Problems } from '../../src/chain/typed-data-check.js'

const types = {
  Order: [
    { name: 'owner', type: 'address' },
    { name: 'amount', type: 'uint8' },
    { name: 'delta', type: 'int8' },
    { name: 'selector', type: 'bytes4' },
    { name: 'data', type: 'bytes' },
    { name: 'memo', type: 'string' },
    { name: 'flag', type: 'bool' },
    { name: 'inner', type: 'Inner' },
    { name: 'ids', type: 'string[]' },
    { name: 'inners', type: 'Inner[]' },
  ],
  Inner: [{ name: 'value', type: 'uint256' }],
} as const

const valid = {
  owner: `0x${'AB'.repeat(20)}`,
  amount: '255',
  delta: -128,
  selector: '0xDEADBEEF',
  data: '0x',
  memo: 'hi',
  flag: true,
  inner: { value: 7n },
  ids: ['a', 'b'],
  inners: [{ value: '1' }, { value: 2 }],
}

function normalised(value: unknown): { message: Record<string, unknown>; problems: Problems } {
  const problems: Problems = []
  return { message: normaliseStruct(types, 'Order', value, 'value', problems), problems }
}

describe('normaliseStruct', () => {
  it('turns every field into what the hash needs: bigints, lowercase hex, nested structs and arrays alike', () => {
    expect(normalised(valid)).toEqual({
      message: {
        owner: `0x${'ab'.repeat(20)}`,
        amount: 255n,
        delta: -128n,
        selector: '0xdeadbeef',
        data: '0x',
        memo: 'hi',
        flag: true,
        inner: { value: 7n },
        ids: ['a', 'b'],
        inners: [{ value: 1n }, { value: 2n }],
      },
      problems: [],
    })
  })

  it('names the path, what was expected and what was received for each bad field, nested ones included', () => {
    const { problems } = normalised({
      ...valid,
      owner: '0x12',
      amount: 256,
      delta: '-129',
      selector: '0xdead',
      data: '0x1',
      memo: 5,
      flag: 'yes',
      inner: { value: '1e3', extra: 1 },
      ids: ['a', 3],
      inners: 'none',
      tip: 1,
    })
    expect(problems).toEqual([
      'value.tip: not a field of Order',
      'value.owner: expected an address, received "0x12"',
      'value.amount: expected a uint8, received 256',
      'value.delta: expected a int8, received "-129"',
      'value.selector: expected 4 bytes of hex, received "0xdead"',
      'value.data: expected hex bytes, received "0x1"',
      'value.memo: expected a string, received 5',
      'value.flag: expected a boolean, received "yes"',
      'value.inner.extra: not a field of Inner',
      'value.inner.value: expected a uint256, received "1e3"',
      'value.ids[1]: expected a string, received 3',
      'value.inners: expected Inner[], received "none"',
    ])
  })

  it('reports a missing field with its type, a value that is not an object, and an unsupported type', () => {
    const { ids: _ids, ...withoutIds } = valid
    expect(normalised(withoutIds).problems).toEqual(['value.ids: missing (string[])'])
    expect(normalised([1]).problems).toEqual(['value: expected a Order object, received [1]'])
    const problems: Problems = []
    normaliseStruct({ Odd: [{ name: 'x', type: 'fixed128x18' }] }, 'Odd', { x: 1 }, 'value', problems)
    expect(problems).toEqual(['value.x: expected a value of the unsupported type fixed128x18, received 1'])
  })
})

describe('compareTypes', () => {
  const domain = { name: 'Portikus', version: '2.0.0', chainId: 1, verifyingContract: `0x${'11'.repeat(20)}` as const }
  const domainTypes = [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ]
  const problemsOf = (received: unknown) => {
    const problems: Problems = []
    compareTypes(received, types, domain, problems)
    return problems
  }
  const copy = () => ({ Order: types.Order.map((field) => ({ ...field })), Inner: [{ name: 'value', type: 'uint256' }] })

  it('accepts exactly the expected structs, with or without a matching EIP712Domain', () => {
    expect(problemsOf(copy())).toEqual([])
    expect(problemsOf({ ...copy(), EIP712Domain: domainTypes })).toEqual([])
  })

  it('refuses a struct with a field added, retyped, reordered or carrying another key, showing both lists', () => {
    const expectedInner = 'expected (uint256 value)'
    expect(problemsOf({ ...copy(), Inner: [{ name: 'value', type: 'uint8' }] })).toEqual([
      `types.Inner: ${expectedInner}, received (uint8 value)`,
    ])
    expect(problemsOf({ ...copy(), Inner: [{ name: 'value', type: 'uint256', extra: true }] })).toEqual([
      `types.Inner: ${expectedInner}, received (uint256 value)`,
    ])
    expect(
      problemsOf({
        ...copy(),
        Inner: [
          { name: 'value', type: 'uint256' },
          { name: 'more', type: 'bool' },
        ],
      }),
    ).toEqual([`types.Inner: ${expectedInner}, received (uint256 value, bool more)`])
    expect(problemsOf({ ...copy(), Inner: ['uint256 value'] })).toEqual([`types.Inner: ${expectedInner}, received ("uint256 value")`])
    const reordered = copy()
    reordered.Order.reverse()
    expect(problemsOf(reordered)).toHaveLength(1)
  })

  it('refuses one field whose name makes it read like the expected two once listed', () => {
    const twoFields = {
      Pair: [
        { name: 'a', type: 'uint256' },
        { name: 'b', type: 'uint256' },
      ],
    }
    const problems: Problems = []
    compareTypes({ Pair: [{ name: 'a, uint256 b', type: 'uint256' }] }, twoFields, domain, problems)
    expect(problems).toEqual(['types.Pair: expected (uint256 a, uint256 b), received (uint256 a, uint256 b)'])
  })

  it('refuses an unknown struct, a missing one, and an EIP712Domain of other fields', () => {
    const { Inner: _inner, ...withoutInner } = copy()
    expect(problemsOf({ ...withoutInner, Tip: [] })).toEqual(['types.Tip: not a type of this payload', 'types.Inner: missing'])
    expect(problemsOf({ ...copy(), EIP712Domain: domainTypes.slice(1) })).toEqual([
      'types.EIP712Domain: expected (string name, string version, uint256 chainId, address verifyingContract), received (string version, uint256 chainId, address verifyingContract)',
    ])
    expect(problemsOf('types')).toEqual(['types: expected an object, received "types"'])
  })
})
