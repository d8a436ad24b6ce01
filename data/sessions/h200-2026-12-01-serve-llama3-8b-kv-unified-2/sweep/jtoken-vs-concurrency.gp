set terminal svg size 900,560 dynamic enhanced font "sans,12" background "white"
set output "jtoken-vs-concurrency.svg"
$E0 << EOD
16 507.313 507.313 507.313
EOD
$E1 << EOD
16 420.206 402.755 437.657
32 385.023 347.81 422.235
64 356.536 323.77 389.302
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
