import { orderIdOf } from '../domain/order-id.js'
import type { Journal } from './journal.js'
import type { JournalOrder } from './orders.js'

/** The order an id names, whichever id it is: local order id, intent id, venue order id or order hash. */
export function findOrders(journal: Pick<Journal, 'getOrder'>, id: string): JournalOrder[] {
  const direct =
    journal.getOrder({ id }) ??
    journal.getOrder({ id: orderIdOf(id) }) ??
    journal.getOrder({ venueId: id }) ??
    journal.getOrder({ venueId: id.toLowerCase() }) ??
    journal.getOrder({ orderHash: id.toLowerCase() })
  return direct ? [direct] : []
}
