import { BaseError } from '../errors/base.js'

/** A value cannot be encoded or decoded under the protocol's rules. Operational: the input must be corrected. */
export class ProtocolEncodingError extends BaseError {
  override name = 'ProtocolEncodingError'
  constructor(shortMessage: string, details: Record<string, unknown>, hint?: string) {
    super(shortMessage, { details, hint, errorClass: 'operational' })
  }
}
