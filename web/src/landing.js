// The landing answer: the project's headline question, answered from the server's own measured rows
// (GET /v1/measurements) and the decision layer (GET /v1/estimate), with the command that measured it.
// The page holds the question, never the figures: they change when the dataset does.
'use strict';

// The headline question; also the page's default selections (curve, forms), so that a visitor first
// sees what the project measured itself.
const HEADLINE = { gpu: 'H200', gpuReported: 'NVIDIA H200', arch: 'hopper', engine: 'llama.cpp', precision: 'Q4_K_M', shape: 'Llama-3-8B', params_b: 8, batch: 1, baseline: 'F16' };

// How the headline's run was made (data/sessions/h200-2026-12-03-llama3-8b-atlas-b1-accept-throttled,
// the b1-8 atlas run of that session again at batch 1 with --accept-throttled). The API keeps no run
// design per session, so the command is written here; the browser test checks it against that
// session's run.json and reports.
const HEADLINE_COMMAND = [
  'ecocompute synth --arch llama3-8b --type f16 -o llama3-8b-f16.gguf',
  'ecocompute measure -m llama3-8b-f16.gguf --baseline F16 -p Q8_0,Q6_K,Q4_K_M,Q4_0,IQ4_NL --batch 1 -k 3 \\\n'
    + '  --tokens 128 --iterations 1 --warmups 1 --trial-warmup change --edges corrected --min-window 1 \\\n'
    + '  --min-prefill-window 0.3 --idle-window 10 --prefill-windows first-batch --token-choice device \\\n'
    + '  --accept-throttled -o results',
];

const rowTime = (r) => (r.row_key || '').split('|').pop();
const hasCi = (r) => typeof r.delta_ci95_low_pct === 'number' && typeof r.delta_ci95_high_pct === 'number';

// The measured rows that answer the headline question exactly (shape, GPU, engine, format, batch 1).
function headlineRows(rows) {
  // The GPU itself, not only its architecture: an H100 row of the same shape is not the H200's answer.
  // Measured rows carry the name the driver reports (an H200 NVL reports "NVIDIA H200 NVL").
  return rows.filter((r) => r.gpu === HEADLINE.gpuReported && r.gpu_arch === HEADLINE.arch && r.engine === HEADLINE.engine && r.precision === HEADLINE.precision
    && (r.model || '').includes(HEADLINE.shape) && rowLevel(r) === `b${HEADLINE.batch}` && typeof r.delta_pct === 'number');
}
// The one shown: measured, with an interval, newest run, most trials.
function headlineRow(rows) {
  return headlineRows(rows).filter((r) => r.basis === 'measured').sort((a, b) =>
    (hasCi(b) - hasCi(a)) || rowTime(b).localeCompare(rowTime(a)) || (b.n_trials || 1) - (a.n_trials || 1))[0] || null;
}
// Yes only when the whole interval saves, no only when it all costs (the estimator's rule).
function answerWord(low, high) {
  if (high < 0) return 'Yes';
  if (low > 0) return 'No';
  return 'Not clearly';
}

function renderHeadline(row, session, estimate) {
  const q = `Does ${HEADLINE.precision} save energy per token against ${HEADLINE.baseline}? ${HEADLINE.shape} shape on an ${HEADLINE.gpu} with ${HEADLINE.engine}, batch ${HEADLINE.batch}.`;
  $('headline-question').textContent = q;
  const answer = $('headline-answer');
  if (!row) {
    answer.textContent = `The server has no measured row for this question (${HEADLINE.shape}, ${HEADLINE.gpu}, ${HEADLINE.engine}, ${HEADLINE.precision}, batch ${HEADLINE.batch}).`;
    answer.className = 'error';
    return;
  }
  const [low, high] = hasCi(row) ? [row.delta_ci95_low_pct, row.delta_ci95_high_pct] : [row.delta_pct, row.delta_pct];
  Object.assign(answer.dataset, { delta: String(row.delta_pct), ciLow: String(low), ciHigh: String(high), n: String(row.n_trials || 1), session: row.session_id, basis: row.basis, rowKey: row.row_key });
  answer.textContent = `${answerWord(low, high)}: ${signed(row.delta_pct)} % energy per token vs ${HEADLINE.baseline}`
    + (hasCi(row) ? ` (95 % CI ${signed(low)} … ${signed(high)} %)` : ' (no interval: one trial)');
  const detail = $('headline-detail');
  detail.innerHTML = '';
  const b = badge(row.basis, `basis-${row.basis}`);
  b.id = 'headline-basis';
  detail.appendChild(b);
  const sessionText = session ? `${session.label}${session.date ? `, ${session.date}` : ''}` : row.session_id;
  detail.appendChild(document.createTextNode(` n = ${row.n_trials || 1} paired trials · ${row.model}, ${fmt(row.params_b, 2)} B · `
    + `${fmt(row.energy_per_token_mj, 0)} vs ${fmt(row.fp16_energy_per_token_mj, 0)} mJ/token · session ${sessionText} (id ${row.session_id}, run ${rowTime(row)})`));
  const pooled = $('headline-pooled');
  if (estimate && typeof estimate.delta_pct === 'number') {
    const sessions = (estimate.figure_basis && estimate.figure_basis.delta_pct && estimate.figure_basis.delta_pct.sessions) || [];
    const ci = Array.isArray(estimate.ci) ? ` (95 % ${signed(estimate.ci[0])} … ${signed(estimate.ci[1])} %)` : '';
    pooled.dataset.delta = String(estimate.delta_pct);
    pooled.textContent = `Over all ${sessions.length || 'the'} sessions that measured this size, the decision layer answers ${signed(estimate.delta_pct)} %${ci}, basis ${estimate.basis}: the answer the question form below gives.`;
  } else {
    pooled.textContent = '';
  }
}

async function loadHeadline() {
  $('headline-command').textContent = HEADLINE_COMMAND.join('\n');
  const row = headlineRow(state.rows);
  const session = row ? state.sessions.find((s) => s.id === row.session_id) : null;
  let estimate = null;
  try {
    const q = new URLSearchParams({ gpu: HEADLINE.gpu, engine: HEADLINE.engine, precision: HEADLINE.precision,
      params_b: String(row ? row.params_b : HEADLINE.params_b), batch: String(HEADLINE.batch) });
    estimate = await api(`/v1/estimate?${q}`);
  } catch (err) { /* the measured row stands on its own; the pooled line is left out */ }
  renderHeadline(row, session, estimate);
}
