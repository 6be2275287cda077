import { chartGeometry } from './report-charts.js'

// The report's only script, inlined in the page. The charts are already drawn as SVG; this adds the hover readout of
// the line charts (a cursor, a dot per line and the values at the pointer, as numbers or percentages), reading each
// line's last value per pixel column from the JSON element #report-data. DOM calls only (no innerHTML, so labels stay text); plain ES2017; no
// network. When done it marks <html data-report-script="ready"> (or "failed" with data-report-error), which the
// headless-browser test reads.

const { width, height, left, right, top, bottom } = chartGeometry

export const reportChartScript = `(function () {
  'use strict';
  var root = document.documentElement;
  var NS = 'http://www.w3.org/2000/svg';
  var W = ${width}, L = ${left}, T = ${top}, PW = ${width - left - right}, PH = ${height - top - bottom};

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    for (var key in attrs) node.setAttribute(key, String(attrs[key]));
    parent.appendChild(node);
    return node;
  }
  function r1(v) { return Math.round(v * 10) / 10; }
  function group(v) { return v.replace(/\\B(?=(\\d{3})+(?!\\d))/g, ','); }
  function fmt(v) {
    var a = Math.abs(v);
    var s = a >= 1000 ? a.toFixed(2) : a >= 1 ? a.toFixed(4) : a === 0 ? '0' : a.toPrecision(6);
    var parts = s.split('.');
    return (v < 0 ? '-' : '') + group(parts[0]) + (parts.length > 1 ? '.' + parts[1] : '');
  }
  function percent(v) {
    var s = (v * 100).toFixed(2);
    return (/^-0.00$/.test(s) ? '0.00' : s) + ' %';
  }
  function time(t) { return new Date(t).toISOString().slice(0, 16).replace('T', ' '); }

  // the nearest column that has a value
  function nearest(values, column) {
    for (var d = 0; d < values.length; d++) {
      if (column - d >= 0 && values[column - d] !== null) return column - d;
      if (column + d < values.length && values[column + d] !== null) return column + d;
    }
    return -1;
  }

  function readout(svg, c) {
    var ys = c.y.max > c.y.min ? PH / (c.y.max - c.y.min) : 0;
    function sy(v) { return r1(T + PH - (ys ? (v - c.y.min) * ys : PH / 2)); }
    var layer = el('g', { 'class': 'readout', visibility: 'hidden' }, svg);
    var cursor = el('line', { y1: T, y2: T + PH }, layer);
    var dots = c.lines.map(function (line) { return el('circle', { r: 3.5, 'class': 'dot ' + line.name }, layer); });
    var box = el('rect', { x: L + 8, y: T + 4, width: 200, height: 18 + 16 * c.lines.length, 'class': 'readout-box' }, layer);
    var rows = [T + 18].concat(c.lines.map(function (line, i) { return T + 34 + 16 * i; })).map(function (y) {
      return el('text', { x: L + 16, y: y, 'class': 'readout-text' }, layer);
    });
    svg.addEventListener('mousemove', function (event) {
      var rect = svg.getBoundingClientRect();
      var x = (event.clientX - rect.left) / rect.width * W;
      if (x < L || x > L + PW) { layer.setAttribute('visibility', 'hidden'); return; }
      var column = Math.min(PW - 1, Math.floor(x - L));
      rows[0].textContent = time(c.x.min + (column + 0.5) / PW * (c.x.max - c.x.min)) + ' UTC';
      c.lines.forEach(function (line, i) {
        var at = nearest(line.values, column);
        if (at < 0) return;
        var v = line.values[at];
        rows[i + 1].textContent = line.label + ': ' + (c.unit === 'percent' ? percent(v) : fmt(v));
        dots[i].setAttribute('cx', L + at + 0.5);
        dots[i].setAttribute('cy', sy(v));
      });
      var widest = 0;
      rows.forEach(function (row) { widest = Math.max(widest, row.getComputedTextLength()); });
      box.setAttribute('width', r1(widest + 16));
      cursor.setAttribute('x1', r1(x));
      cursor.setAttribute('x2', r1(x));
      layer.setAttribute('visibility', 'visible');
    });
    svg.addEventListener('mouseleave', function () { layer.setAttribute('visibility', 'hidden'); });
  }

  try {
    var data = JSON.parse(document.getElementById('report-data').textContent);
    var ready = 0;
    data.readouts.forEach(function (c) {
      var svg = document.getElementById(c.id);
      if (!svg || !c.lines.length) return;
      readout(svg, c);
      ready++;
    });
    root.setAttribute('data-readouts', String(ready));
    root.setAttribute('data-report-script', 'ready');
  } catch (error) {
    root.setAttribute('data-report-script', 'failed');
    root.setAttribute('data-report-error', String((error && error.message) || error));
    throw error;
  }
})();
`
