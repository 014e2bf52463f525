// Hand-written SVG charts (no chart library): every label goes in as text, through `visible`.
import { visible } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 110;

function svgNode(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = visible(text);
  return node;
}

/** An SVG frame with a text label for screen readers, the peak value and the time axis. */
function frame(label, axis, peak) {
  const svg = svgNode('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT + 18}`, role: 'img', 'aria-label': label });
  svg.append(svgNode('title', {}, label));
  svg.append(svgNode('line', { x1: 0, y1: HEIGHT, x2: WIDTH, y2: HEIGHT, class: 'axis' }));
  svg.append(svgNode('text', { x: 0, y: 12 }, `max ${peak}`));
  svg.append(svgNode('text', { x: 0, y: HEIGHT + 16 }, axis));
  svg.append(svgNode('text', { x: WIDTH, y: HEIGHT + 16, 'text-anchor': 'end' }, 'now'));
  return svg;
}

/** Bars per step; later series are drawn over earlier ones (errors over calls). */
export function barChart({ label, axis, series, titles }) {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const svg = frame(label, axis, max);
  const count = series[0].values.length;
  const barWidth = WIDTH / count;
  for (const { values, className } of series) {
    values.forEach((value, index) => {
      if (!value) return;
      const h = (value / max) * (HEIGHT - 12);
      const rect = svgNode('rect', {
        x: index * barWidth + barWidth * 0.1,
        y: HEIGHT - h,
        width: Math.max(1, barWidth * 0.8),
        height: h,
        class: className,
      });
      if (titles) rect.append(svgNode('title', {}, titles[index]));
      svg.append(rect);
    });
  }
  return svg;
}

/** Lines per step (null: no calls, a gap), with a legend. */
export function lineChart({ label, axis, series, max: fixedMax }) {
  const max = fixedMax ?? Math.max(1, ...series.flatMap((s) => s.values.filter((v) => v !== null)));
  const svg = frame(label, axis, max);
  const count = series[0].values.length;
  const x = (index) => ((index + 0.5) * WIDTH) / count;
  const y = (value) => HEIGHT - (value / max) * (HEIGHT - 12);
  series.forEach(({ values, className, name }, order) => {
    let points = [];
    const flush = () => {
      if (points.length === 1) {
        const [px, py] = points[0].split(',');
        svg.append(svgNode('circle', { cx: px, cy: py, r: 2, class: `${className} dot` }));
      } else if (points.length > 1) {
        svg.append(svgNode('polyline', { points: points.join(' '), class: className }));
      }
      points = [];
    };
    values.forEach((value, index) => {
      if (value === null) flush();
      else points.push(`${x(index).toFixed(1)},${y(value).toFixed(1)}`);
    });
    flush();
    const legendX = WIDTH - 70 * (series.length - order);
    svg.append(svgNode('line', { x1: legendX, y1: 7, x2: legendX + 14, y2: 7, class: className }));
    svg.append(svgNode('text', { x: legendX + 17, y: 12 }, name));
  });
  return svg;
}

/** Horizontal bars, one per error code, largest first. */
export function codeChart(codes, span) {
  const max = Math.max(1, ...codes.map(([, count]) => count));
  const rowHeight = 20;
  const height = codes.length * rowHeight;
  const svg = svgNode('svg', {
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-label': `Errors by code, ${span}: ${codes.map(([code, count]) => `${code} ${count}`).join(', ')}`,
  });
  codes.forEach(([code, count], index) => {
    const y = index * rowHeight;
    svg.append(svgNode('text', { x: 0, y: y + 15 }, code));
    svg.append(
      svgNode('rect', {
        x: 200,
        y: y + 2,
        width: Math.max(1, (count / max) * (WIDTH - 260)),
        height: rowHeight - 4,
        class: 'bar-error',
      }),
    );
    svg.append(svgNode('text', { x: WIDTH - 50, y: y + 15 }, String(count)));
  });
  return svg;
}
