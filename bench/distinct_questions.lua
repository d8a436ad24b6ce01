-- wrk script: every request asks another question (a model size from 0.5 to 70 B in steps of 0.001 B),
-- so an answer cache rarely holds it: the server's cost per new question, not per repeated one.
-- Usage: wrk -s bench/distinct_questions.lua URL  (URL's path is /v1/estimate or /v1/optimize; its
-- query, without params_b, is kept: e.g. http://host:port/v1/estimate?gpu=H200&precision=Q4_K_M)
local path
function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
  path = wrk.path
end
function request()
  local size = 0.5 + math.random(0, 69500) / 1000
  local sep = path:find("?", 1, true) and "&" or "?"
  return wrk.format("GET", path .. sep .. string.format("params_b=%.3f", size))
end
