type Child = Node | string | number | null | undefined | false
type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>

/** An element with attributes (`on*` functions become listeners) and children (falsy ones skipped). */
export function element<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') node.addEventListener(name.slice(2).toLowerCase(), value)
    else if (value === true) node.setAttribute(name, '')
    else if (value !== undefined && value !== false) node.setAttribute(name, String(value))
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    node.append(typeof child === 'number' ? String(child) : child)
  }
  return node
}

/** A table with a header row; an empty `rows` shows `empty` instead. */
export function table(headers: readonly string[], rows: readonly HTMLTableRowElement[], empty: string): HTMLElement {
  if (rows.length === 0) return element('p', { class: 'empty' }, empty)
  return element(
    'div',
    { class: 'scroll' },
    element(
      'table',
      {},
      element('thead', {}, element('tr', {}, ...headers.map((header) => element('th', {}, header)))),
      element('tbody', {}, ...rows),
    ),
  )
}

/** Clock ms as local date and time to the second. */
export function formatTime(ms: number | null): string {
  if (ms === null) return '—'
  const date = new Date(ms)
  const pad = (value: number) => String(value).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

/** 0x1234…abcd, 3fcecdcc…5ac/0: long ids stay readable (the full one in the title). */
export function shortHex(value: string): HTMLElement {
  const text = /^0x[0-9a-f]{16,}$/i.test(value)
    ? `${value.slice(0, 6)}…${value.slice(-4)}`
    : value.length > 20
      ? `${value.slice(0, 8)}…${value.slice(-6)}`
      : value
  return element('code', { title: value }, text)
}

/** A raw amount (its token's decimals unknown): thousands separators up to 12 digits, 1.0035e18 beyond. */
export function formatAmount(raw: string): string {
  const negative = raw.startsWith('-')
  const digits = negative ? raw.slice(1) : raw
  const sign = negative ? '−' : ''
  if (digits.length <= 12) return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`
  const mantissa = `${digits[0]}.${digits.slice(1, 5)}`.replace(/\.?0+$/, '')
  return `${sign}${mantissa}e${digits.length - 1}`
}

export function link(href: string, ...children: Child[]): HTMLAnchorElement {
  return element('a', { href }, ...children)
}

/** A definition list of facts, each name above its value. */
export function facts(entries: readonly (readonly [string, string | Node])[]): HTMLElement {
  return element(
    'dl',
    { class: 'facts' },
    ...entries.map(([name, value]) => element('div', {}, element('dt', {}, name), element('dd', {}, value))),
  )
}

/**
 * An amount in token units for reading: thousands separators, four decimals at most from 1 up, four significant
 * digits below 1 (`1,000`, `0.5089`, `0.0001234`); `+` before a gain when `signed`. Cut, not rounded: the exact
 * amount is in the title.
 */
export function formatUnitsText(units: string, signed = false): string {
  const negative = units.startsWith('-')
  const [whole = '0', fraction = ''] = (negative ? units.slice(1) : units).split('.')
  const leadingZeros = whole === '0' ? (/^0*/.exec(fraction)?.[0].length ?? 0) : 0
  const kept = fraction.slice(0, whole === '0' ? leadingZeros + 4 : 4).replace(/0+$/, '')
  const text = `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${kept ? `.${kept}` : ''}`
  const zero = /^[0,.]+$/.test(text)
  return `${negative && !zero ? '−' : signed && !zero ? '+' : ''}${text}`
}

/** What an answer says of a token: its name (symbol, else short address) and whether its symbol is known. */
export type TokenName = { name: string; symbol: string | null }

/**
 * An amount of a token: `−1,000 USDC` in token units, or, for a token whose symbol and decimals are unknown, its raw
 * units and short address (marked "raw"). The exact amount and the token's address are in the title.
 */
export function tokenAmount(
  units: string | null,
  raw: string,
  token: (TokenName & { address?: string }) | null,
  signed = false,
): HTMLElement {
  const title = `${units ?? raw}${units === null ? ' raw units' : ''}${token?.address ? ` of ${token.address}` : ''}`
  if (units === null || token === null || token.symbol === null) {
    return element(
      'span',
      { class: 'amount raw', title },
      signed && !raw.startsWith('-') && raw !== '0' ? '+' : '',
      formatAmount(raw),
      ' ',
      element('small', {}, token ? `raw ${token.name}` : 'raw units'),
    )
  }
  return element(
    'span',
    { class: 'amount', title },
    formatUnitsText(units, signed),
    ' ',
    element('span', { class: 'symbol' }, token.symbol),
  )
}
