// The batch atlas tab: one format's ΔE vs F16 over model size × batch for the H200 with llama.cpp, as a
// heatmap table (GET /v1/atlas). Every cell is the decision layer's answer with its 95 % interval; the
// cells that are not measured are hatched and say how they were obtained, so no estimate reads as data.
'use strict';

// Green saves, red costs; the colour saturates at ±50 %.
function atlasColour(delta) {
  const t = Math.max(-1, Math.min(1, delta / 50));
  const alpha = (Math.abs(t) * 0.7 + 0.08).toFixed(2);
  return t < 0 ? `rgba(11,110,79,${alpha})` : `rgba(180,35,24,${alpha})`;
}

function atlasCellText(cell) {
  if (typeof cell.delta_pct !== 'number') return '–';
  const ci = Array.isArray(cell.ci) ? `[${signed(cell.ci[0])}, ${signed(cell.ci[1])}]` : '';
  return `${signed(cell.delta_pct)} % ${ci}`.trim();
}

function renderAtlas(grid) {
  const table = $('atlas-table');
  const head = ['<tr><th scope="col">Model (size)</th>'];
  for (const b of grid.batches) head.push(`<th scope="col" class="num">batch ${b}</th>`);
  head.push('</tr>');
  table.querySelector('thead').innerHTML = head.join('');
  const body = [];
  grid.sizes_b.forEach((size, row) => {
    const label = (grid.size_labels && grid.size_labels[row]) || '';
    const cells = [`<th scope="row">${label} (${fmt(size, 2)} B)</th>`];
    grid.batches.forEach((batch, col) => {
      const cell = grid.cells[row * grid.batches.length + col];
      const measured = cell.basis === 'measured';
      const delta = typeof cell.delta_pct === 'number' ? ` data-delta="${cell.delta_pct}"` : '';
      const title = `${label} ${fmt(size, 2)} B, batch ${batch}: ${cell.basis}` + (measured ? ` (${cell.sessions} session${cell.sessions === 1 ? '' : 's'})` : '');
      cells.push(`<td class="num atlas-cell ${measured ? 'measured' : 'not-measured'}" data-basis="${cell.basis}"${delta} title="${title}">${atlasCellText(cell)}</td>`);
    });
    body.push(`<tr>${cells.join('')}</tr>`);
  });
  table.querySelector('tbody').innerHTML = body.join('');
  // Colours through the CSS object model: the page's Content-Security-Policy refuses style attributes.
  for (const td of table.querySelectorAll('td[data-delta]')) td.style.backgroundColor = atlasColour(Number(td.dataset.delta));
  $('atlas-status').textContent = `${grid.precision} vs F16 on ${grid.gpu} with ${grid.engine}: ${grid.measured} of ${grid.cells.length} cells measured; the hatched ones are not (their basis is in each cell's title). ${grid.scope.charAt(0).toUpperCase()}${grid.scope.slice(1)}.`;
}

async function loadAtlas() {
  const precision = $('atlas-format').value;
  $('atlas-status').textContent = `Loading ${precision}…`;
  try {
    renderAtlas(await api(`/v1/atlas?gpu=H200&engine=llama.cpp&precision=${encodeURIComponent(precision)}`));
  } catch (err) {
    $('atlas-status').textContent = `The atlas could not be loaded: ${err.message}`;
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('atlas-format').addEventListener('change', loadAtlas);
});
