import { type Address, BaseError, ContractFunctionRevertedError } from 'viem'

/**
 * Why a settlement did not go through, and so what becomes of the order:
 * - `permanent`: it can never settle as signed (signature, permit length, fee, kind) → FAILED;
 * - `expired` / `cancelledOnChain`: the contract says so → EXPIRED / CANCELLED;
 * - `ownerFunds`: the owner's side of the transfer failed (balance, allowance, deposit or its permit);
 * - `tooEarly`: a TWAP slice before the contract's spacing allows it;
 * - `transient`: anything else (an agent short of inventory, a price move, a busy node): try again later.
 */
export type SettlementFailure =
  | { kind: 'permanent' | 'expired' | 'cancelledOnChain' | 'ownerFunds' | 'transient'; reason: string }
  | { kind: 'tooEarly'; reason: string; nextSliceAt: bigint }

const permanentErrors = new Set([
  'InvalidSignature',
  'InvalidSignatureLength',
  'InvalidPermitLength',
  'PermitNotAllowedForPartialFill',
  'FeeTooHigh',
  'InvalidOrderKind',
  'InvalidTwapParams',
  'InvalidNativeValue',
  'OrderAlreadyFilled',
  'OrderOverfilled',
  'TwapCompleted',
])

export function classifySettlementFailure(error: unknown, owner: Address): SettlementFailure {
  const reverted =
    error instanceof BaseError
      ? (error.walk((cause) => cause instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | undefined)
      : undefined
  const name = reverted?.data?.errorName
  if (!reverted || !name) {
    const reason = reverted?.reason ?? (error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error))
    return { kind: 'transient', reason }
  }
  const args = (reverted.data?.args ?? []) as readonly unknown[]
  const reason = `${name}(${args.map(String).join(', ')})`
  if (permanentErrors.has(name)) return { kind: 'permanent', reason }
  if (name === 'OrderExpired') return { kind: 'expired', reason }
  if (name === 'OrderIsCancelled') return { kind: 'cancelledOnChain', reason }
  if (name === 'InsufficientNativeBalance') return { kind: 'ownerFunds', reason }
  if (name === 'TransferFailed' && String(args[1]).toLowerCase() === owner.toLowerCase()) return { kind: 'ownerFunds', reason }
  if (name === 'TwapIntervalNotElapsed') return { kind: 'tooEarly', reason, nextSliceAt: BigInt(args[0] as bigint) }
  return { kind: 'transient', reason }
}
