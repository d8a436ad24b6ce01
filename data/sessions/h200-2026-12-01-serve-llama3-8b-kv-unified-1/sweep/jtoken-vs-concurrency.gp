set terminal svg size 900,560 dynamic enhanced font "sans,12" background "white"
set output "jtoken-vs-concurrency.svg"
$E0 << EOD
1 3376.23 3331.42 3421.05
2 1735.58 1665.84 1805.32
4 988.756 926.129 1051.38
8 644.871 615.292 674.451
EOD
$E1 << EOD
1 2029.34 1961.9 2096.78
2 1297.32 1239.92 1354.73
4 998.075 935.597 1060.55
8 844.076 804.63 883.523
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
