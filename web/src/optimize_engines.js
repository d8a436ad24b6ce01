// The optimize tab's engine and candidate precisions. Left to the API's defaults they were bitsandbytes
// and FP16/NF4/INT8 on every GPU, so an H200 — measured only with llama.cpp — got an answer modelled
// from another card's curve. Here the engine defaults to the one with measured curves for the chosen
// architecture (GET /v1/architectures), the precisions to the ones measured with it, both shown and
// editable, and the other engines' best answers are listed beside the recommendation with their basis.
'use strict';

const optimizeChoice = { engineSetByUser: false };

// arch → engine → precisions measured with it, from the architectures listing.
function measuredEngines() {
  const out = {};
  for (const arch of (state.archs && state.archs.known) || []) {
    const precisions = (state.archs[arch] && state.archs[arch].precisions) || {};
    out[arch] = {};
    for (const [p, info] of Object.entries(precisions)) {
      for (const engine of Object.keys(info.engines || { [info.engine]: {} })) (out[arch][engine] ||= []).push(p);
    }
  }
  return out;
}
function allEngines() {
  const engines = new Set();
  for (const byEngine of Object.values(measuredEngines())) Object.keys(byEngine).forEach((e) => engines.add(e));
  return [...engines].sort();
}
// The engine with the most measured precisions on this architecture (ties: alphabetical).
function defaultEngine(arch) {
  const byEngine = measuredEngines()[arch] || {};
  const ranked = Object.entries(byEngine).sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  return ranked.length ? ranked[0][0] : allEngines()[0] || '';
}
// FP16 (the baseline every ΔE is against) and the formats measured with this engine on this
// architecture, else on any architecture (the API then borrows or models, and says so).
function defaultPrecisions(arch, engine) {
  const here = (measuredEngines()[arch] || {})[engine];
  const anywhere = new Set();
  for (const byEngine of Object.values(measuredEngines())) (byEngine[engine] || []).forEach((p) => anywhere.add(p));
  const list = here && here.length ? here : [...anywhere].sort();
  return ['FP16', ...list.filter((p) => p !== 'FP16')];
}
const splitList = (text) => String(text || '').split(',').map((s) => s.trim()).filter(Boolean);

function followArchForEngine() {
  const form = $('optimize-form');
  const arch = form.elements.arch.value;
  if (!optimizeChoice.engineSetByUser) form.elements.engine.value = defaultEngine(arch);
  form.elements.precisions.value = defaultPrecisions(arch, form.elements.engine.value).join(',');
}

function setUpOptimizeEngines() {
  const form = $('optimize-form');
  const select = form.elements.engine;
  select.innerHTML = '';
  for (const e of allEngines()) { const o = document.createElement('option'); o.value = e; o.textContent = e; select.appendChild(o); }
  form.elements.arch.addEventListener('change', followArchForEngine);
  select.addEventListener('change', () => {
    optimizeChoice.engineSetByUser = true;
    form.elements.precisions.value = defaultPrecisions(form.elements.arch.value, select.value).join(',');
  });
  followArchForEngine();
}

// The question as the API takes it: precisions as a list.
function optimizeBody(form) {
  const body = formJson(form);
  if (body.gpu) delete body.arch;
  if (body.precisions !== undefined) body.precisions = splitList(body.precisions);
  return body;
}

function describeChoice(r) {
  return `${r.precision}, batch ${r.batch}, context ${r.context}: ${fmt(r.energy_mj_per_token ?? r.energy_j_per_1k_tokens, 0)} mJ/token, ΔE ${signed(r.delta_pct_vs_fp16)} % vs FP16`;
}

// Every other engine asked the same question with its own precisions; each answer keeps its basis.
async function renderEngineAlternatives(body, arch) {
  const list = $('optimize-engines');
  list.innerHTML = '';
  const others = allEngines().filter((e) => e !== body.engine);
  $('optimize-engines-title').hidden = others.length === 0;
  await Promise.all(others.map(async (engine) => {
    const item = document.createElement('li');
    item.dataset.engine = engine;
    list.appendChild(item);
    const precisions = defaultPrecisions(arch, engine);
    // An engine never measured on this architecture can only answer from another one: asked so, the
    // answer comes labelled borrowed instead of a refusal.
    const measuredHere = ((measuredEngines()[arch] || {})[engine] || []).length > 0;
    const question = { ...body, engine, precisions, ...(measuredHere ? {} : { allow_borrow: true }) };
    try {
      const o = await api('/v1/optimize', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(question) });
      const r = o.recommended;
      if (!r) { item.textContent = `${engine} (${precisions.join(', ')}): nothing meets the constraints.`; return; }
      const energyBasis = r.basis && r.basis.energy;
      item.dataset.basis = energyBasis || '';
      item.appendChild(badge(energyBasis || 'unknown', `basis-${energyBasis}`));
      const detail = r.basis_detail && r.basis_detail.energy ? ` — ${r.basis_detail.energy.label}` : '';
      item.appendChild(document.createTextNode(` ${engine} (${precisions.join(', ')}): ${describeChoice(r)}${detail}`));
    } catch (err) {
      item.dataset.basis = 'unavailable';
      item.textContent = `${engine} (${precisions.join(', ')}): no answer — ${err.message}`;
    }
  }));
}
