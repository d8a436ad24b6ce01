-- wrk script: every request asks another question (a model size from 0.5 to 70 B in steps of 0.001 B),
-- so an answer cache rarely holds it: the server's cost per new question, not per repeated one.
-- Usage: wrk -s bench/distinct_questions.lua URL [-- mixed]
--   URL's path is /v1/estimate or /v1/optimize; its query, without params_b, is kept
--   (e.g. http://host:port/v1/estimate?gpu=H200&precision=Q4_K_M).
--   mixed: the GPU (H200, H100) changes too, and for /v1/estimate the format (five GGUF types) and the
--   batch (1-48), so that no part of an answer that depends on those alone is shared between requests
--   more often than the mix allows (with the URL's query then holding none of them).
local path
local mixed = false
local gpus = {"H200", "H100"}
local formats = {"Q8_0", "Q6_K", "Q4_K_M", "Q4_0", "IQ4_NL"}
function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
  path = wrk.path
  mixed = args[1] == "mixed"
end
function request()
  local size = 0.5 + math.random(0, 69500) / 1000
  local sep = path:find("?", 1, true) and "&" or "?"
  local query = string.format("params_b=%.3f", size)
  if mixed then
    query = query .. "&gpu=" .. gpus[math.random(#gpus)]
    if path:find("/v1/estimate", 1, true) then
      query = query .. "&precision=" .. formats[math.random(#formats)] .. "&batch=" .. math.random(1, 48)
    end
  end
  return wrk.format("GET", path .. sep .. query)
end
