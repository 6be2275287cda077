// What the optimisation report adds to the reports' shared stylesheet (report-styles.ts): fold colours (Okabe–Ito
// hues, as the backtest report's series, with lighter ones in dark mode), scatter points told apart by shape as well
// as colour (winners are diamonds, missing values crosses, limit breakers hollow), and in sample against out of sample.

export const optimizeReportStyles = `
:root {
  --fold-0: #0072b2; --fold-1: #d55e00; --fold-2: #009e73; --fold-3: #cc79a7; --fold-4: #8a6100; --fold-5: #56b4e9;
  --fold-6: #6f4e9c; --fold-7: #4f5560; --in-sample: #0072b2; --out-of-sample: #d55e00;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fold-0: #56b4e9; --fold-1: #f07e3c; --fold-2: #2fc79b; --fold-3: #e3a3c7; --fold-4: #e6b400; --fold-5: #9fd3f2;
    --fold-6: #c3a6ec; --fold-7: #aab0bb; --in-sample: #56b4e9; --out-of-sample: #f07e3c;
  }
}
.plot .point { stroke: var(--bg); stroke-width: 1; fill-opacity: 0.85; }
.plot .point:hover { stroke: var(--ink); stroke-width: 2; }
.plot .point.fold-0 { fill: var(--fold-0); color: var(--fold-0); } .plot .point.fold-1 { fill: var(--fold-1); color: var(--fold-1); }
.plot .point.fold-2 { fill: var(--fold-2); color: var(--fold-2); } .plot .point.fold-3 { fill: var(--fold-3); color: var(--fold-3); }
.plot .point.fold-4 { fill: var(--fold-4); color: var(--fold-4); } .plot .point.fold-5 { fill: var(--fold-5); color: var(--fold-5); }
.plot .point.fold-6 { fill: var(--fold-6); color: var(--fold-6); } .plot .point.fold-7 { fill: var(--fold-7); color: var(--fold-7); }
.plot .point.in-sample { fill: var(--in-sample); color: var(--in-sample); }
.plot .point.out-of-sample { fill: var(--out-of-sample); color: var(--out-of-sample); }
.plot .point.winner { stroke: var(--ink); stroke-width: 1.2; fill-opacity: 1; }
.plot .point.hollow { fill: var(--bg); stroke: currentColor; stroke-width: 1.6; }
.plot .point.cross { fill: none; stroke: currentColor; stroke-width: 2; }
.plot .line.pair { stroke: var(--ink-soft); stroke-width: 1.4; }
.swatch-point { width: 10px; height: 10px; border-radius: 50%; }
.swatch-fold-0 { background: var(--fold-0); } .swatch-fold-1 { background: var(--fold-1); } .swatch-fold-2 { background: var(--fold-2); }
.swatch-fold-3 { background: var(--fold-3); } .swatch-fold-4 { background: var(--fold-4); } .swatch-fold-5 { background: var(--fold-5); }
.swatch-fold-6 { background: var(--fold-6); } .swatch-fold-7 { background: var(--fold-7); }
.swatch-in-sample { background: var(--in-sample); } .swatch-out-of-sample { background: var(--out-of-sample); }
.swatch-winner { width: 10px; height: 10px; border-radius: 0; transform: rotate(45deg); background: var(--ink-soft); outline: 1px solid var(--ink); }
.swatch-hollow { width: 10px; height: 10px; border-radius: 50%; border: 2px solid var(--ink-soft); }
.swatch-missing { width: 12px; height: 12px; border-radius: 0; background: linear-gradient(45deg, transparent 43%, var(--ink-soft) 43%, var(--ink-soft) 57%, transparent 57%), linear-gradient(-45deg, transparent 43%, var(--ink-soft) 43%, var(--ink-soft) 57%, transparent 57%); }
.swatch-guide { height: 0; border-top: 2px dashed var(--guide); border-radius: 0; }
.swatch-pair { background: var(--ink-soft); height: 2px; }
.figures tr.excluded td { color: var(--ink-soft); }
.figures tr.sharp td, .figures tr.sharp th { background: var(--neg-bg); }
.figures.folds tbody + tbody { border-top: 2px solid var(--rule); }
.figures.folds th.sample { font-weight: 500; color: var(--ink-soft); white-space: nowrap; }
.figures.folds tr.in-sample td, .figures.folds tr.in-sample th { border-bottom-style: dotted; }
.figures.folds td.winner .values { margin-top: 2px; font-size: 0.85rem; color: var(--ink-soft); max-width: 16rem; }
.figures.folds td.winner .values b { color: var(--ink); font-weight: 600; }
.figures .parameter { white-space: nowrap; }
.figures.folds td.time { white-space: normal; }
.figures.folds td.time .stamp { white-space: nowrap; }
.figures.folds td.note { min-width: 8rem; }
.figures.ranking td.note { white-space: nowrap; }
.figures th.path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem; font-weight: 600; white-space: nowrap; }
table.recommended-values { width: auto; min-width: 50%; }
.efficiency { margin: 10px 0 0; }
.figures td.value { white-space: nowrap; }
.figures td.warning span, .figures td.note span { cursor: help; border-bottom: 1px dotted var(--ink-soft); }
.recommendation .warnings { margin-top: 18px; }
.no-recommendation { margin: 12px 0; padding: 12px 16px; border-radius: 8px; border-left: 6px solid var(--neg); background: var(--neg-bg); }
.objective-charts .chart h3 { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.95rem; }
`
