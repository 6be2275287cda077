import { BaseError } from '../../errors/base.js'

/**
 * The maker cannot run as configured: a chain its strategy quotes is not served or has no RPC, no RFQ contract, a
 * credential variable is missing. Operational: `deltaflow maker` stops before serving; the user fixes the config.
 */
export class MakerSetupError extends BaseError {
  override name = 'MakerSetupError' as const
}
