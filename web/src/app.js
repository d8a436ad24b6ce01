// EcoCompute web UI: tabs over the REST API of `ecocompute serve`. No framework; charts by Chart.js.
'use strict';

const state = { curves: [], rows: [], sessions: [], archs: null, reportText: null, overlay: null, grade: null, charts: {}, batchesOf: null };
const TABS = ['curves', 'atlas', 'models', 'estimate', 'optimize', 'run', 'gallery'];
const $ = (id) => document.getElementById(id);
const fmt = (v, digits = 1) => (typeof v === 'number' && isFinite(v) ? v.toFixed(digits) : '–');
const signed = (v, digits = 1) => (typeof v === 'number' && isFinite(v) ? (v > 0 ? '+' : '') + v.toFixed(digits) : '–');

// ---------- API ----------
async function api(path, options = {}) {
  const response = await fetch(path, options);
  let body = null;
  try { body = await response.json(); } catch (e) { body = { error: `HTTP ${response.status}` }; }
  if (!response.ok) throw new Error(body && body.error ? body.error : `HTTP ${response.status}`);
  return body;
}

// ---------- share links: ?tab=run&overlay=<base64url JSON {m,N,a,p,e,b,g}> (the published encoding) ----------
function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  bytes.forEach((b) => { binary += String.fromCharCode(b); });
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function fromBase64Url(text) {
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const binary = atob(padded);
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
function encodeOverlay(o) {
  return toBase64Url(JSON.stringify({ m: o.m, N: o.N, a: o.a, p: o.p, e: Math.round(o.e * 100) / 100, b: o.b, g: o.g }));
}
function decodeOverlay(text) {
  const o = JSON.parse(fromBase64Url(text));
  if (typeof o !== 'object' || o === null) throw new Error('overlay is not an object');
  return { m: String(o.m ?? ''), N: Number(o.N), a: String(o.a ?? ''), p: String(o.p ?? ''), e: Number(o.e), b: String(o.b ?? ''), g: String(o.g ?? '') };
}

// ---------- tabs (WAI-ARIA tabs: arrows, Home, End) ----------
function selectTab(name, focus = false) {
  if (!TABS.includes(name)) name = 'estimate';
  for (const t of TABS) {
    const tab = $(`tab-${t}`);
    const selected = t === name;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(`panel-${t}`).hidden = !selected;
    if (selected && focus) tab.focus();
  }
  const url = new URL(window.location.href);
  url.searchParams.set('tab', name);
  if (name !== 'run') url.searchParams.delete('overlay');
  history.replaceState(null, '', url);
  document.body.dataset.tab = name;
  if (name === 'gallery') loadGallery();
  if (name === 'atlas') loadAtlas();
  if (name === 'run') drawRunChart();
  if (name === 'curves') drawCurveChart();
}
function setUpTabs() {
  for (const t of TABS) $(`tab-${t}`).addEventListener('click', () => selectTab(t));
  $('tabs').addEventListener('keydown', (event) => {
    const current = TABS.indexOf(document.body.dataset.tab);
    let next = null;
    if (event.key === 'ArrowRight') next = (current + 1) % TABS.length;
    if (event.key === 'ArrowLeft') next = (current + TABS.length - 1) % TABS.length;
    if (event.key === 'Home') next = 0;
    if (event.key === 'End') next = TABS.length - 1;
    if (next !== null) { event.preventDefault(); selectTab(TABS[next], true); }
  });
}

// ---------- curves ----------
const curveKey = (c) => `${c.gpu_arch}|${c.engine}|${c.precision}`;
function findCurve(arch, precision) {
  const a = (arch || '').toLowerCase();
  const p = (precision || '').toUpperCase();
  return state.curves.find((c) => c.gpu_arch === a && c.precision.toUpperCase() === p) || null;
}
// The measured rows of a curve's architecture, engine and precision at one batch level ("b1", "c8").
function pointsFor(c, level) {
  return state.rows.filter((r) => r.gpu_arch === c.gpu_arch && r.engine === c.engine && r.precision === c.precision
    && typeof r.delta_pct === 'number' && rowLevel(r) === level);
}
// The levels measured for a curve's key, batch levels first, in numeric order.
function levelsFor(c) {
  const levels = new Set(state.rows.filter((r) => r.gpu_arch === c.gpu_arch && r.engine === c.engine && r.precision === c.precision).map(rowLevel));
  const fitted = curveBatch(c, state.rows);
  if (fitted) levels.add(fitted);
  const rank = (l) => (l.startsWith('c') ? 1e6 : 0) + levelLoad(l) + levelContext(l) / 1e7;
  return [...levels].sort((a, b) => rank(a) - rank(b));
}
// The fitted curve is drawn only at the batch its points were measured at: a batch-1 fit under batch-8
// points would read as a prediction for batch 8, which it is not. A curve whose points do not say their
// batch (no matching rows) is drawn with the level it is asked for and the summary says so.
function curveDatasets(c, { confidenceBand = true, level = curveBatch(c, state.rows) || 'b1' } = {}) {
  const samples = c.samples || [];
  const fitted = curveBatch(c, state.rows);
  const drawCurve = fitted === null || fitted === level;
  const rows = pointsFor(c, level);
  const filled = rows.filter((r) => (r.n_trials || 1) >= 2);
  const hollow = rows.filter((r) => (r.n_trials || 1) < 2);
  const xy = (r) => ({ x: r.params_b, y: r.delta_pct, model: r.model, n: r.n_trials || 1, level: rowLevel(r) });
  const colour = levelColour(level);
  const sets = [];
  if (drawCurve) {
    if (confidenceBand && samples.some((s) => typeof s.ci_low_pct === 'number')) {
      sets.push({ label: '95 % band (low)', data: samples.map((s) => ({ x: s.params_b, y: s.ci_low_pct })), borderWidth: 0, pointRadius: 0, fill: false, showLine: true, backgroundColor: 'rgba(11,110,79,0.12)' });
      sets.push({ label: '95 % interval for a new card', data: samples.map((s) => ({ x: s.params_b, y: s.ci_high_pct })), borderWidth: 0, pointRadius: 0, fill: '-1', showLine: true, backgroundColor: 'rgba(11,110,79,0.12)' });
    }
    const at = fitted ? ` (${levelText(fitted)})` : '';
    sets.push({ label: `the model${at}, measured range`, curve: true, data: samples.filter((s) => s.in_range).map((s) => ({ x: s.params_b, y: s.delta_pct })), showLine: true, pointRadius: 0, borderColor: '#0b6e4f', borderWidth: 2 });
    sets.push({ label: 'the model beyond the data (extrapolated)', curve: true, data: samples.map((s) => ({ x: s.params_b, y: s.delta_pct })), showLine: true, pointRadius: 0, borderColor: '#0b6e4f', borderDash: [6, 4], borderWidth: 1 });
  }
  sets.push({ label: `${levelText(level)}: measured, n ≥ 2`, level, data: filled.map(xy), pointRadius: 6, pointStyle: 'circle', backgroundColor: colour, borderColor: colour });
  sets.push({ label: `${levelText(level)}: measured, n = 1`, level, data: hollow.map(xy), pointRadius: 6, pointStyle: 'circle', backgroundColor: 'rgba(255,255,255,1)', borderColor: colour, borderWidth: 2 });
  return sets;
}
// Axis ticks: labels kept horizontal and spaced (Chart.js skips the ones that would collide). On a log
// axis only the 1-2-5 ticks of each decade (1-2-3-5 on a short range, else all) are kept, written
// without trailing zeros ("0.5", "10"): Chart.js's own log labels ("9.0", "10.0") run into each other.
const TICKS = { autoSkip: true, autoSkipPadding: 12, maxRotation: 0 };
const significand = (v) => Math.round((v / 10 ** Math.floor(Math.log10(v))) * 1000) / 1000;
const tickText = (v) => String(Number(Number(v).toPrecision(3)));
function keepReadableLogTicks(scale) {
  for (const keep of [[1, 2, 5], [1, 2, 3, 5]]) {
    const ticks = scale.ticks.filter((t) => t.value > 0 && keep.includes(significand(t.value)));
    if (ticks.length >= 4) { scale.ticks = ticks; return; }
  }
}
function linearAxis(title) {
  return { type: 'linear', title: { display: true, text: title }, ticks: { ...TICKS } };
}
function logAxis(title) {
  return { type: 'logarithmic', title: { display: true, text: title }, afterBuildTicks: keepReadableLogTicks, ticks: { ...TICKS, callback: tickText } };
}
const HIDDEN_LEGEND = new Set(['95 % band (low)', 'grade band (low)']);
function chartOptions(xTitle, yTitle, logX = true) {
  return {
    responsive: true, maintainAspectRatio: false, animation: false,
    scales: {
      x: logX ? logAxis(xTitle) : linearAxis(xTitle),
      y: linearAxis(yTitle),
    },
    plugins: {
      legend: { position: 'bottom', labels: { filter: (item) => !HIDDEN_LEGEND.has(item.text) } },
      tooltip: { callbacks: { label: (ctx) => { const d = ctx.raw; return `${d.model ? d.model + ' ' : ''}${fmt(d.x, 2)} B${d.level ? `, ${levelText(d.level)}` : ''}: ${signed(d.y)} %${d.n ? ` (n = ${d.n})` : ''}`; } } },
    },
  };
}
function replaceChart(name, canvasId, config) {
  if (state.charts[name]) state.charts[name].destroy();
  if (typeof Chart === 'undefined') return;
  state.charts[name] = new Chart($(canvasId), config);
}
// The batch selector offers the levels measured for the chosen curve; the choice is kept when the next
// curve has it, else the curve's own batch is shown.
function fillBatchSelect(c) {
  const select = $('curve-batch');
  const before = select.value;
  const levels = levelsFor(c);
  select.innerHTML = '';
  for (const l of levels) {
    const o = document.createElement('option');
    o.value = l;
    o.textContent = levelText(l);
    select.appendChild(o);
  }
  select.value = levels.includes(before) ? before : (curveBatch(c, state.rows) || levels[0] || '');
}
// The model's curves at one batch level, asked once per level (/v1/curves?batch=N has a curve for each
// format measured at that batch).
async function curvesAtLevel(level) {
  if (!level.startsWith('b') || levelContext(level) > 0) return [];  // the model is fitted at the baseline context
  const batch = levelLoad(level);
  if (batch === 1) return state.curves;
  state.curvesAt ||= {};
  state.curvesAt[batch] ||= api(`/v1/curves?batch=${batch}`).then((r) => r.curves).catch(() => []);
  return state.curvesAt[batch];
}
async function drawCurveChart() {
  const c = state.curves.find((x) => curveKey(x) === $('curve-select').value);
  if (!c) { $('curve-summary').textContent = 'No curves in this dataset.'; return; }
  if (state.batchesOf !== curveKey(c)) { fillBatchSelect(c); state.batchesOf = curveKey(c); }
  const level = $('curve-batch').value || 'b1';
  const atLevel = (await curvesAtLevel(level)).find((x) => curveKey(x) === curveKey(c)) || null;
  // The user may have moved on while the curves of this level loaded: draw only the latest choice.
  if (curveKey(c) !== $('curve-select').value || level !== ($('curve-batch').value || 'b1')) return;
  const shownCurve = atLevel || c;
  const fitted = curveBatch(shownCurve, state.rows);
  const crossover = typeof shownCurve.crossover_b === 'number' ? `crossover at ${fmt(shownCurve.crossover_b, 2)} B` : 'no crossover inside the measured range';
  const points = pointsFor(c, level).length;
  const shown = fitted === null
    ? ` The API does not say which batch this curve was fitted at; shown with the ${levelText(level)} points.`
    : fitted === level ? '' : ` No curve is fitted at ${levelText(level)} (the curve above is for ${levelText(fitted)}): only the measured points are drawn.`;
  $('curve-summary').textContent = `${c.gpu_arch} · ${c.engine} · ${c.precision}: the decision model's ΔE at ${levelText(fitted || 'b1')} on ${(shownCurve.gpus || []).join(', ')}, measured ${fmt(shownCurve.range_min_b, 1)}–${fmt(shownCurve.range_max_b, 1)} B by ${shownCurve.sessions} session${shownCurve.sessions === 1 ? '' : 's'}, ${crossover}.`;
  $('curve-batch-summary').textContent = `Showing ${levelText(level)}: ${points} measured point${points === 1 ? '' : 's'}.${shown}`;
  $('curve-chart').dataset.batch = level;
  replaceChart('curve', 'curve-chart', { type: 'scatter', data: { datasets: curveDatasets(shownCurve, { level }) }, options: chartOptions('model size (billions of parameters)', 'ΔE % vs FP16') });
}
async function loadCurves() {
  const [curves, rows, archs] = await Promise.all([api('/v1/curves'), api('/v1/measurements'), api('/v1/architectures')]);
  state.curves = curves.curves;
  state.rows = rows.rows;
  state.sessions = rows.sessions || [];
  state.archs = archs;
  const select = $('curve-select');
  select.innerHTML = '';
  for (const c of state.curves) {
    const option = document.createElement('option');
    option.value = curveKey(c);
    option.textContent = `${c.gpu_arch} · ${c.precision} · ${c.engine}`;
    select.appendChild(option);
  }
  // The project's own measured curve first, not whichever the API lists first.
  const own = `${HEADLINE.arch}|${HEADLINE.engine}|${HEADLINE.precision}`;
  if (state.curves.some((c) => curveKey(c) === own)) select.value = own;
  for (const s of document.querySelectorAll('.arch-select')) {
    s.innerHTML = '';
    for (const a of archs.known) { const o = document.createElement('option'); o.value = a; o.textContent = a; s.appendChild(o); }
    s.value = HEADLINE.arch;
  }
  renderModels();
}

// ---------- your model (estimate) ----------
function formJson(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === 'checkbox') {  // sent only when ticked: the API's default is false
      if (el.checked) out[el.name] = true;
      continue;
    }
    if (el.value === '') continue;
    out[el.name] = el.type === 'number' ? Number(el.value) : el.value;
  }
  return out;
}
// One line per figure: what it rests on (measured on which GPU and session, interpolated, extrapolated,
// borrowed from what, modelled by what). A modelled or borrowed figure is never shown as measured.
function figureBases(bases, id, names) {
  const list = document.createElement('ul');
  list.id = id;
  list.className = 'bases';
  for (const [key, name] of Object.entries(names)) {
    const b = bases && bases[key];
    if (!b) continue;
    const item = document.createElement('li');
    item.dataset.figure = key;
    item.dataset.basis = b.basis;
    item.appendChild(badge(b.basis, `basis-${b.basis}`));
    item.appendChild(document.createTextNode(` ${name}: ${b.label}${b.sessions && b.sessions.length ? ` (session${b.sessions.length > 1 ? 's' : ''} ${b.sessions.join(', ')})` : ''}`));
    list.appendChild(item);
  }
  return list;
}
function badge(text, cls) { const b = document.createElement('span'); b.className = `badge ${cls}`; b.textContent = text; return b; }
async function submitEstimate(event) {
  event.preventDefault();
  const result = $('estimate-result');
  result.textContent = 'Estimating…';
  const body = formJson(event.target);
  if (body.gpu) delete body.arch;
  try {
    const e = await api('/v1/estimate', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    result.innerHTML = '';
    const verdict = document.createElement('p');
    verdict.id = 'estimate-verdict';
    verdict.className = 'verdict';
    verdict.textContent = e.verdict;
    result.appendChild(verdict);
    const line = document.createElement('p');
    line.id = 'estimate-numbers';
    const ci = Array.isArray(e.ci) ? ` (95 % interval ${signed(e.ci[0])} … ${signed(e.ci[1])} %)` : '';
    line.textContent = `ΔE ${signed(e.delta_pct)} % vs FP16${ci} · basis: ${e.basis} · confidence: ${e.confidence} · architecture used: ${e.arch_used} · engine: ${e.engine} `;
    line.appendChild(badge(e.recommendation.replace(/_/g, ' '), e.recommendation));
    result.appendChild(line);
    result.appendChild(qualityParagraph(e.quality_cost, 'estimate-quality'));
    if (e.energy_estimate) {
      const q = document.createElement('p');
      const ci = Array.isArray(e.energy_estimate.mj_per_token_ci) ? ` (95 % ${fmt(e.energy_estimate.mj_per_token_ci[0], 0)} … ${fmt(e.energy_estimate.mj_per_token_ci[1], 0)})` : '';
      q.textContent = `Energy per token: ${fmt(e.energy_estimate.mj_per_token, 0)} mJ${ci} [${e.energy_estimate.basis}] vs FP16 ${fmt(e.energy_estimate.fp16_mj_per_token, 0)} mJ [${e.energy_estimate.fp16_basis}] — ${e.energy_estimate.method}.`;
      result.appendChild(q);
    }
    result.appendChild(figureBases(e.figure_basis, 'estimate-bases', {
      delta_pct: 'ΔE', energy: 'energy per token', fp16_energy: 'FP16 energy', weight_gb: 'weights (memory)' }));
    for (const n of e.notes || []) { const p = document.createElement('p'); p.className = 'summary'; p.textContent = n; result.appendChild(p); }
  } catch (err) {
    result.innerHTML = '';
    const p = document.createElement('p'); p.className = 'error'; p.id = 'estimate-error'; p.textContent = err.message; result.appendChild(p);
  }
}

// ---------- the architecture follows the GPU typed ----------
// The server resolves the name (GET /v1/estimate echoes the architecture of the GPU it was asked about,
// as `input.arch`), so the page keeps no GPU table of its own. Unknown or partial names leave the
// selector as it is; the newest answer wins.
function followGpu(form) {
  const input = form.elements.gpu;
  const select = form.elements.arch;
  let timer = null;
  let asked = 0;
  const resolve = async () => {
    clearTimeout(timer);
    const name = input.value.trim();
    const ticket = ++asked;
    if (!name) return;
    try {
      const e = await api(`/v1/estimate?${new URLSearchParams({ gpu: name, params_b: '1' })}`);
      const arch = e && e.input && e.input.arch;
      // A change event, as if picked by hand: what follows the architecture (the engine) follows it.
      if (ticket === asked && input.value.trim() === name && [...select.options].some((o) => o.value === arch) && select.value !== arch) {
        select.value = arch;
        select.dispatchEvent(new Event('change'));
      }
    } catch (err) { /* not a GPU the server knows (yet): the selector stays */ }
  };
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(resolve, 250); });
  input.addEventListener('change', resolve);
  return resolve;
}

// ---------- optimize ----------
async function submitOptimize(event) {
  event.preventDefault();
  const result = $('optimize-result');
  result.textContent = 'Optimizing…';
  try {
    // A GPU typed just before the click is resolved first, so the engine and precisions sent are the
    // ones for that GPU, not for the one before it.
    if (state.resolveOptimizeGpu) await state.resolveOptimizeGpu();
    const body = optimizeBody(event.target);
    const arch = event.target.elements.arch.value;
    const o = await api('/v1/optimize', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    result.innerHTML = '';
    const p = document.createElement('p');
    p.id = 'optimize-recommended';
    p.className = 'verdict';
    const r = o.recommended;
    p.textContent = r
      ? `Recommended with ${r.engine || body.engine}: ${r.precision}, batch ${r.batch}, context ${r.context} — energy ${fmt(r.energy_j_per_1k_tokens, 0)} J/1k tokens [${r.basis.energy}], ΔE ${signed(r.delta_pct_vs_fp16)} % vs FP16, ${fmt(r.latency_ms_per_token, 1)} ms/token [${r.basis.latency}], ${fmt(r.vram_gb, 1)} GB [${r.basis.vram}]; ${o.feasible_count} feasible.`
      : `Nothing meets the constraints${o.closest_infeasible ? `; closest: ${o.closest_infeasible.precision} batch ${o.closest_infeasible.batch} (${o.closest_infeasible.violations.join('; ')})` : ''}.`;
    result.appendChild(p);
    const lead = o.recommended || o.closest_infeasible;
    if (lead) result.appendChild(qualityParagraph(lead.quality, 'optimize-quality'));
    if (o.rests_on_model) {
      const w = document.createElement('p');
      w.id = 'optimize-model-warning';
      w.className = 'error';
      w.textContent = `This recommendation rests on a model: its energy is modelled, not measured${o.best_unmodelled ? `; the best configuration whose energy is not modelled is ${o.best_unmodelled.summary}` : ''}.`;
      result.appendChild(w);
    }
    if (o.basis_detail) {
      result.appendChild(figureBases(o.basis_detail, 'optimize-bases', { energy: 'energy', latency: 'latency and throughput', vram: 'memory' }));
    }
    for (const n of o.notes || []) { const q = document.createElement('p'); q.className = 'summary'; q.textContent = n; result.appendChild(q); }
    renderEngineAlternatives(body, arch);
    const energy = (c) => (typeof c.relative_energy === 'number' ? c.relative_energy : c.energy_rel_fp16);
    const pt = (c) => ({ x: c.latency_ms_per_token, y: energy(c), label: `${c.precision} b${c.batch}`, batch: c.batch });
    // Each configuration's point in its batch's colour (the same colours as the crossover chart).
    const byBatch = (fallback) => (ctx) => (ctx.raw && ctx.raw.batch ? levelColour(`b${ctx.raw.batch}`) : fallback);
    replaceChart('optimize', 'optimize-chart', {
      type: 'scatter',
      // The recommendation is usually a point of the Pareto front: drawn last (order −1: Chart.js draws
      // the lowest order on top), larger, filled amber with a dark outline, so the front does not hide it.
      data: { datasets: [
        { label: 'Pareto front (energy vs latency), points coloured by batch', data: (o.pareto_energy_latency || []).map(pt), showLine: true, borderColor: '#0b6e4f', backgroundColor: '#0b6e4f', pointBackgroundColor: byBatch('#0b6e4f'), pointBorderColor: byBatch('#0b6e4f'), pointRadius: 5 },
        { label: 'alternatives', data: (o.alternatives || []).map(pt), backgroundColor: '#8c959f', pointBackgroundColor: byBatch('#8c959f'), pointRadius: 4 },
        { label: 'recommended', order: -1, data: o.recommended ? [pt(o.recommended)] : [], backgroundColor: '#bf8700', borderColor: '#1b1f23', borderWidth: 2, pointRadius: 10, pointHoverRadius: 12, pointStyle: 'rectRot' },
      ] },
      options: { responsive: true, maintainAspectRatio: false, animation: false,
        scales: { x: linearAxis('latency per token (ms, roofline)'), y: linearAxis('energy per token relative to FP16 batch 1') },
        plugins: { tooltip: { callbacks: { label: (ctx) => `${ctx.raw.label} (batch ${ctx.raw.batch}): ${fmt(ctx.raw.x, 2)} ms, ×${fmt(ctx.raw.y, 3)}` } } } },
    });
  } catch (err) {
    result.innerHTML = '';
    const p = document.createElement('p'); p.className = 'error'; p.textContent = err.message; result.appendChild(p);
  }
}

// ---------- run it yourself ----------
// Grading is the server's (POST|GET /v1/check, the same rules as `ecocompute check`): the page only
// draws what it answers.
function gradeReport(text) {
  return api('/v1/check', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
}
function gradeSharedPoint(o) {
  const q = new URLSearchParams({ params_b: String(o.N), arch: o.a, precision: o.p, delta_pct: String(o.e), basis: o.b, model: o.m, gpu: o.g });
  return api(`/v1/check?${q}`);
}
function showOverlay(o, g, source) {
  state.overlay = o;
  state.grade = g;
  const result = $('run-result');
  result.innerHTML = '';
  const p = document.createElement('p');
  p.id = 'run-summary';
  p.textContent = `${o.m || 'model'} (${fmt(o.N, 2)} B) on ${o.g || o.a}, ${o.p}: ΔE ${signed(o.e, 2)} % vs FP16, basis ${o.b}${source ? ` — ${source}` : ''}. `;
  const b = badge(g.grade.replace('_', ' '), g.grade);
  b.id = 'run-grade';
  p.appendChild(b);
  result.appendChild(p);
  const reason = document.createElement('p'); reason.className = 'summary'; reason.textContent = g.reason; result.appendChild(reason);
  if (g.quality_cost) result.appendChild(qualityParagraph(g.quality_cost, 'run-quality'));
  const link = $('share-link');
  const url = new URL(window.location.href);
  url.search = '';
  url.searchParams.set('tab', 'run');
  url.searchParams.set('overlay', encodeOverlay(o));
  link.href = url.toString();
  link.hidden = false;
  drawRunChart();
}
// The band the grade used: the server's [low, high] at the report's size, the decision model's 95 %
// interval for a new card there (as /v1/estimate answers it, the report's own session left out),
// drawn as an interval at the report's size, and along the model's samples of the same format over the
// measured range (where the grade is the same kind of interval).
function gradeBandDatasets(c, o, g) {
  if (!g || !Array.isArray(g.band) || !g.band.every((v) => typeof v === 'number' && isFinite(v))) return [];
  const [low, high] = g.band;
  const sets = [];
  // Along the model's samples only where they are the format the server graded against.
  if (c && typeof g.expected_delta_pct === 'number' && g.reference === 'model') {
    const along = (c.samples || []).filter((s) => s.in_range && Math.abs(s.params_b - o.N) > 1e-9)
      .map((s) => ({ x: s.params_b, low: s.ci_low_pct, high: s.ci_high_pct }));
    along.push({ x: o.N, low, high });
    along.sort((a, b) => a.x - b.x);
    const edge = { borderColor: 'rgba(125,78,0,0.6)', borderWidth: 1, borderDash: [3, 3], pointRadius: 0, pointHitRadius: 0, showLine: true, backgroundColor: 'rgba(191,135,0,0.16)' };
    sets.push({ label: 'grade band (low)', data: along.map((p) => ({ x: p.x, y: p.low })), fill: false, ...edge });
    sets.push({ label: 'grade band: the model\'s 95 % interval for a new card', data: along.map((p) => ({ x: p.x, y: p.high })), fill: '-1', ...edge });
  }
  sets.push({ label: `grade interval at ${fmt(o.N, 2)} B: ${signed(low, 1)} … ${signed(high, 1)} %`, order: -0.5, data: [{ x: o.N, y: low }, { x: o.N, y: high }],
    showLine: true, borderColor: '#7d4e00', backgroundColor: '#7d4e00', borderWidth: 2, pointStyle: 'line', pointRadius: 8, pointBorderWidth: 2 });
  return sets;
}
function runCurve(o, g) {
  const key = g && g.curve;
  const graded = key ? state.curves.find((c) => c.gpu_arch === key.gpu_arch && c.engine === key.engine && c.precision === key.precision) : null;
  return graded || findCurve(o.a, o.p);
}
function drawRunChart() {
  const o = state.overlay;
  if (!o || $('panel-run').hidden) return;
  const c = runCurve(o, state.grade);
  const sets = [...gradeBandDatasets(c, o, state.grade), ...(c ? curveDatasets(c, { confidenceBand: false }) : [])];
  sets.push({ label: 'your report', order: -1, data: [{ x: o.N, y: o.e, model: o.m }], pointRadius: 10, pointStyle: 'triangle', backgroundColor: '#bf8700', borderColor: '#7d4e00' });
  replaceChart('run', 'run-chart', { type: 'scatter', data: { datasets: sets }, options: chartOptions('model size (billions of parameters)', 'ΔE % vs FP16') });
}
// Forgets the shown report: its chart, share link and submit button (after a drop that failed).
function clearReport() {
  state.overlay = null;
  state.grade = null;
  state.reportText = null;
  if (state.charts.run) { state.charts.run.destroy(); delete state.charts.run; }
  $('share-link').hidden = true;
  $('share-link').href = '#';
  $('submit-report').hidden = true;
  $('run-result').innerHTML = '';
}
async function readReportFile(file) {
  const text = await file.text();
  const submit = $('submit-report');
  $('submit-result').textContent = '';
  try {
    const graded = await gradeReport(text);
    state.reportText = text;
    showOverlay(graded.overlay, graded, file.name);
    submit.hidden = false;
    // A report the server cannot grade is still stored if submitted; the button says so.
    submit.textContent = graded.grade === 'not_gradeable'
      ? 'Submit anyway (stored as not gradeable)' : 'Submit to the replications store';
  } catch (err) {
    clearReport();
    const p = document.createElement('p'); p.className = 'error'; p.id = 'run-error'; p.textContent = `${file.name}: ${err.message}`; $('run-result').appendChild(p);
  }
}
async function submitReport() {
  const out = $('submit-result');
  out.textContent = 'Submitting…';
  try {
    // A server started with --write-keys asks for a bearer key; the key stays in this tab only.
    const key = $('write-key').value.trim();
    const headers = { 'Content-Type': 'application/json' };
    if (key) { headers.Authorization = `Bearer ${key}`; sessionStorage.setItem('ecocompute-write-key', key); }
    const r = await api('/v1/replications', { method: 'POST', headers, body: state.reportText });
    out.textContent = `${r.created ? 'Stored' : 'Already stored'} as replication #${r.id}; the server graded it ${r.grade.replace('_', ' ')}: ${r.grade_reason}`;
    out.dataset.id = String(r.id);
  } catch (err) {
    out.textContent = `Not stored: ${err.message}`;
  }
}
function setUpDropZone() {
  const zone = $('drop-zone');
  const input = $('report-file');
  zone.addEventListener('click', () => input.click());
  zone.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); input.click(); } });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    if (e.dataTransfer.files.length > 0) readReportFile(e.dataTransfer.files[0]);
  });
  input.addEventListener('change', () => { if (input.files.length > 0) readReportFile(input.files[0]); });
  $('submit-report').addEventListener('click', submitReport);
  $('write-key').value = sessionStorage.getItem('ecocompute-write-key') || '';
}

// ---------- replications gallery ----------
async function loadGallery() {
  const body = $('gallery-table').querySelector('tbody');
  try {
    const page = await api('/v1/replications?limit=100');
    body.innerHTML = '';
    $('gallery-empty').hidden = page.replications.length > 0;
    for (const r of page.replications) {
      const tr = document.createElement('tr');
      tr.dataset.id = String(r.id);
      const cells = [String(r.id), r.received_at_utc, r.model_name || '–', fmt(r.params_b, 2), r.gpu || '–', r.precision || '–', r.engine || '–', signed(r.vs_fp16_energy_pct, 2), r.basis || '–'];
      cells.forEach((v) => { const td = document.createElement('td'); td.textContent = v; tr.appendChild(td); });
      const grade = document.createElement('td');
      const b = badge(r.grade.replace('_', ' '), r.grade);
      b.title = r.grade_reason;
      grade.appendChild(b);
      tr.appendChild(grade);
      body.appendChild(tr);
    }
  } catch (err) {
    body.innerHTML = '';
    $('gallery-empty').hidden = false;
    $('gallery-empty').textContent = `Could not load replications: ${err.message}`;
  }
}

// ---------- start ----------
async function start() {
  setUpTabs();
  setUpDropZone();
  $('estimate-form').addEventListener('submit', submitEstimate);
  $('optimize-form').addEventListener('submit', submitOptimize);
  $('curve-select').addEventListener('change', drawCurveChart);
  $('curve-batch').addEventListener('change', drawCurveChart);
  const params = new URLSearchParams(window.location.search);
  const followers = [followGpu($('estimate-form')), followGpu($('optimize-form'))];
  state.resolveOptimizeGpu = followers[1];
  try { await loadCurves(); } catch (err) { $('curve-summary').textContent = `Could not load curves: ${err.message}`; }
  setUpOptimizeEngines();
  await Promise.all([loadHeadline(), ...followers.map((resolve) => resolve())]);
  // The question form follows the landing answer: its defaults are the headline's question.
  selectTab(params.get('tab') || 'estimate');
  const overlay = params.get('overlay');
  if (overlay) {
    try { const o = decodeOverlay(overlay); showOverlay(o, await gradeSharedPoint(o), 'shared link'); selectTab('run'); } catch (err) {
      clearReport();
      const p = document.createElement('p'); p.className = 'error'; p.textContent = `The shared overlay could not be read: ${err.message}`; $('run-result').appendChild(p);
    }
  }
  document.body.dataset.ready = 'true';
}
document.addEventListener('DOMContentLoaded', start);
