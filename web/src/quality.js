// The quality half of an answer (the `quality_cost` object of /v1/estimate, /v1/optimize candidates and
// /v1/check): ΔPPL with its interval, KLD where known, its own basis and source, or why it is unknown.
'use strict';

function qualityLine(q) {
  if (!q) return 'Quality cost: none — FP16 is the reference every quality figure is measured against.';
  if (typeof q.delta_ppl_pct !== 'number') return `Quality cost of ${q.precision}: ${q.reason || 'unknown'} [basis: none].`;
  const num = (v) => (Math.abs(v) >= 10 ? v.toFixed(1) : Math.abs(v) >= 0.1 ? v.toFixed(2) : v.toPrecision(2));
  const sign = (v) => (v > 0 ? '+' : '') + num(v);
  const interval = typeof q.delta_ppl_pct_low === 'number' ? ` (interval ${sign(q.delta_ppl_pct_low)} … ${sign(q.delta_ppl_pct_high)} %)` : '';
  const kld = typeof q.kld === 'number' ? `, KLD ${q.kld.toPrecision(3)}` : '';
  const note = q.note ? ` Note: ${q.note}.` : '';
  return `Quality cost of ${q.precision}: perplexity ${sign(q.delta_ppl_pct)} % vs FP16${interval}${kld} — ${q.basis_text} [basis: ${q.basis}]. Source: ${q.source}.${note}`;
}

function qualityParagraph(q, id) {
  const p = document.createElement('p');
  p.id = id;
  p.className = 'summary';
  p.dataset.basis = q ? q.basis : 'reference';
  p.textContent = qualityLine(q);
  return p;
}
