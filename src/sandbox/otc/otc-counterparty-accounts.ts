import { type Address, isAddressEqual } from 'viem'
import { sandboxAddress } from '../chains/catalogue.js'

const counterpartyCount = 3

/**
 * The sandbox's simulated OTC counterparties, the same on every chain: name one of them as `taker` of a P2P order
 * and it fills the order a few sandbox seconds after the order becomes PENDING. Also served at
 * `GET /_sandbox/otc/counterparties`.
 */
export function otcCounterpartyAddresses(): readonly Address[] {
  return Array.from({ length: counterpartyCount }, (_, index) => sandboxAddress(`otc.counterparty.${index}`))
}

export function isOtcCounterparty(address: Address): boolean {
  return otcCounterpartyAddresses().some((counterparty) => isAddressEqual(counterparty, address))
}
