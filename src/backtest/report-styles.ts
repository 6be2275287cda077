// The report's inline stylesheet. Colours: Okabe–Ito hues for the chart series (told apart with the common colour
// vision deficiencies), buys and sells also told apart by shape, the headline by an arrow and a word; every text colour
// has at least 4.5:1 contrast on its background, in light and dark mode. System fonts only.

export const reportStyles = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --panel: #f4f5f7; --ink: #1b1d21; --ink-soft: #4f5560; --rule: #d7dae0; --grid: #e6e8ec;
  --pos: #0a6b3d; --neg: #b3261e; --pos-bg: #e7f4ec; --neg-bg: #fbeae8; --warn-bg: #fff4d6; --warn-rule: #b07c00;
  --equity: #0072b2; --buy-and-hold: #c27c00; --hold-start: #009e73; --price: #4f5560; --buy: #0072b2; --sell: #d55e00;
  --better: #0072b2; --worse: #e69f00; --neutral: #8a919c; --band: rgba(213, 94, 0, 0.13); --recovery: rgba(0, 114, 178, 0.08);
  --window: rgba(79, 85, 96, 0.1); --drawdown: #c14f00; --drawdown-area: rgba(213, 94, 0, 0.16); --guide: #6f4e9c;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15171b; --panel: #1f2228; --ink: #e9ebef; --ink-soft: #aab0bb; --rule: #3a3f48; --grid: #2a2e35;
    --pos: #5fd39a; --neg: #ff8a80; --pos-bg: #12301f; --neg-bg: #3a1a17; --warn-bg: #33290d; --warn-rule: #e0b341;
    --equity: #56b4e9; --buy-and-hold: #e69f00; --hold-start: #2fc79b; --price: #aab0bb; --buy: #56b4e9; --sell: #f07e3c;
    --better: #56b4e9; --worse: #e69f00; --neutral: #8f96a1; --band: rgba(240, 126, 60, 0.18); --recovery: rgba(86, 180, 233, 0.1);
    --window: rgba(170, 176, 187, 0.12); --drawdown: #f07e3c; --drawdown-area: rgba(240, 126, 60, 0.24); --guide: #c3a6ec;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1040px; margin: 0 auto; padding: 20px 20px 48px; }
h1 { font-size: 1.45rem; margin: 0 0 4px; }
h2 { font-size: 1.1rem; margin: 28px 0 6px; }
.meta, .note { color: var(--ink-soft); margin: 0 0 8px; }
.pos { color: var(--pos); } .neg { color: var(--neg); }
.headline { margin: 16px 0; padding: 14px 18px; border-radius: 8px; border-left: 6px solid var(--rule); background: var(--panel); }
.headline.pos { background: var(--pos-bg); border-left-color: var(--pos); color: inherit; }
.headline.neg { background: var(--neg-bg); border-left-color: var(--neg); color: inherit; }
.headline .verdict { font-size: 1.6rem; font-weight: 700; margin: 0 0 4px; }
.headline.pos .verdict { color: var(--pos); } .headline.neg .verdict { color: var(--neg); }
.headline .detail { margin: 0; }
.headline .detail + .detail { margin-top: 2px; }
.fill-model { margin: 4px 0 0; }
.fill-model b { text-transform: uppercase; letter-spacing: 0.04em; font-size: 0.85rem; padding: 1px 6px; border-radius: 4px; background: var(--panel); border: 1px solid var(--rule); }
.warnings { margin: 16px 0; padding: 10px 18px; border: 1px solid var(--warn-rule); border-left-width: 6px; border-radius: 8px; background: var(--warn-bg); }
.warnings h2 { margin: 4px 0; }
.warnings ul { margin: 4px 0 6px; padding-left: 20px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(210px, 1fr)); gap: 10px; margin: 16px 0; }
.card { background: var(--panel); border-radius: 8px; padding: 10px 12px; display: flex; flex-direction: column; }
.card .label { color: var(--ink-soft); font-size: 0.85rem; }
.card .value { font-size: 1.2rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .note { font-size: 0.85rem; margin: 0; }
.plot { display: block; width: 100%; height: auto; background: var(--bg); border: 1px solid var(--rule); border-radius: 6px; }
.plot text { font: 12px system-ui, sans-serif; fill: var(--ink-soft); }
.plot .grid { stroke: var(--grid); stroke-width: 1; }
.plot .axis { stroke: var(--rule); stroke-width: 1; }
.plot .empty { fill: var(--ink-soft); font-size: 15px; }
.plot .line { fill: none; stroke-width: 1.6; stroke-linejoin: round; }
.plot .line.equity { stroke: var(--equity); stroke-width: 2; }
.plot .line.buy-and-hold { stroke: var(--buy-and-hold); }
.plot .line.hold-start { stroke: var(--hold-start); }
.plot .line.drawdown { stroke: var(--drawdown); stroke-width: 1.4; }
.plot .area { stroke: none; }
.plot .area.drawdown { fill: var(--drawdown-area); }
.plot .line.price { stroke: var(--price); stroke-width: 1.2; }
.plot .dashed { stroke-dasharray: 6 4; }
.plot .dotted { stroke-dasharray: 1 4; stroke-linecap: round; stroke-width: 2.2; }
.plot .band.drawdown { fill: var(--band); } .plot .band.recovery { fill: var(--recovery); }
#chart-drawdown .band.drawdown { fill: var(--window); }
.plot .bar.better { fill: var(--better); } .plot .bar.worse { fill: var(--worse); } .plot .bar.neutral { fill: var(--neutral); }
.plot .marker { stroke: var(--bg); stroke-width: 1; }
.plot .marker.buy { fill: var(--buy); } .plot .marker.sell { fill: var(--sell); }
.plot .marker:hover { stroke: var(--ink); stroke-width: 2; }
.plot .guide line { stroke: var(--guide); stroke-dasharray: 3 3; stroke-width: 1.2; }
.plot text.guide-label { fill: var(--guide); paint-order: stroke; stroke: var(--bg); stroke-width: 4px; stroke-linejoin: round; }
.plot .readout line { stroke: var(--ink-soft); stroke-width: 1; }
.plot .readout-box { fill: var(--panel); stroke: var(--rule); opacity: 0.94; }
.plot text.readout-text { fill: var(--ink); }
.plot .dot.equity { fill: var(--equity); } .plot .dot.buy-and-hold { fill: var(--buy-and-hold); }
.plot .dot.hold-start { fill: var(--hold-start); } .plot .dot.price { fill: var(--price); } .plot .dot.drawdown { fill: var(--drawdown); }
.legend { margin: 6px 0 0; color: var(--ink-soft); font-size: 0.9rem; }
.key { margin-right: 16px; white-space: nowrap; }
.swatch { display: inline-block; width: 18px; height: 10px; margin-right: 6px; vertical-align: middle; border-radius: 2px; }
.swatch-equity { background: var(--equity); height: 3px; }
.swatch-buy-and-hold { height: 0; border-top: 3px dashed var(--buy-and-hold); border-radius: 0; }
.swatch-hold-start { height: 0; border-top: 3px dotted var(--hold-start); border-radius: 0; }
.swatch-drawdown { background: var(--drawdown-area); border-top: 2px solid var(--drawdown); border-radius: 0; }
.swatch-recovery { background: var(--recovery); outline: 1px solid var(--rule); }
.swatch-window { background: var(--window); outline: 1px solid var(--rule); }
.swatch-price { background: var(--price); height: 2px; }
.swatch-band { background: var(--band); }
.swatch-better { background: var(--better); } .swatch-worse { background: var(--worse); } .swatch-neutral { background: var(--neutral); }
.swatch-buy, .swatch-sell { width: 0; height: 0; border-radius: 0; border-left: 6px solid transparent; border-right: 6px solid transparent; }
.swatch-buy { border-bottom: 10px solid var(--buy); } .swatch-sell { border-top: 10px solid var(--sell); }
.scroll { overflow-x: auto; }
.scroll.days { max-height: 26rem; overflow-y: auto; border-bottom: 1px solid var(--rule); }
.scroll.days thead th { position: sticky; top: 0; background: var(--bg); }
.scroll.days tfoot td, .scroll.days tfoot th { position: sticky; bottom: 0; background: var(--panel); font-weight: 600; }
table.figures { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
.figures th, .figures td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--rule); vertical-align: top; }
.figures thead th { font-weight: 600; color: var(--ink-soft); border-bottom-width: 2px; }
.figures .num { text-align: right; white-space: nowrap; }
.figures td.note { color: var(--ink-soft); margin: 0; }
.figures td.buy { color: var(--buy); font-weight: 600; } .figures td.sell { color: var(--sell); font-weight: 600; }
.summary th { width: 220px; font-weight: 600; }
.figures td.time { white-space: nowrap; }
h3 { font-size: 1rem; margin: 18px 0 6px; }
.figures th.group { padding-top: 14px; color: var(--ink-soft); font-size: 0.85rem; text-transform: uppercase; letter-spacing: 0.04em; }
.figures thead th.span { text-align: center; border-bottom-width: 1px; }
.na { color: var(--ink-soft); cursor: help; }
.figures tr.best td { font-weight: 650; background: var(--panel); }
.id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem; word-break: break-all; }
footer dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0 0 8px; }
footer dt { color: var(--ink-soft); } footer dd { margin: 0; word-break: break-all; }
`
