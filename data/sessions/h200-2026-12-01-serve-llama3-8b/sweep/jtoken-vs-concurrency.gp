set terminal svg size 900,560 dynamic enhanced font "sans,12" background "white"
set output "/tmp/eco/serve-llama3-8b/sweep/jtoken-vs-concurrency.svg"
$E0 << EOD
1 3151.69 3134.4 3168.97
4 2374.4 -560.116 5308.91
16 1584.36 -6866.44 10035.2
64 260.551 165.001 356.1
EOD
$E1 << EOD
1 1989.17 1949.18 2029.16
4 1658.5 274.997 3042
16 1198.91 -4270.61 6668.43
64 252.269 245.734 258.803
EOD
set title "Energy per output token vs concurrency (steady-state window, mean and CI over trials)"
set xlabel "concurrent requests"
set ylabel "mJ per output token"
set logscale x 2
set grid
set key top right
set yrange [0:*]
plot $E0 using 1:2:3:4 with yerrorlines lw 2 pt 7 title "F16", \
     $E1 using 1:2:3:4 with yerrorlines lw 2 pt 7 title "Q4_K_M"
unset output
