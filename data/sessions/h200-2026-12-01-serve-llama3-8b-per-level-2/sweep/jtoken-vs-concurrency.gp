set terminal svg size 900,560 dynamic enhanced font "sans,12" background "white"
set output "jtoken-vs-concurrency.svg"
$E0 << EOD
16 398.597 374.152 423.041
32 301.599 282.578 320.62
64 277.794 181.731 373.858
EOD
$E1 << EOD
16 326.917 320.727 333.107
32 285.525 268.348 302.701
64 260.386 144.077 376.695
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
