set terminal svg size 900,560 dynamic enhanced font "sans,12" background "white"
set output "jtoken-vs-concurrency.svg"
$E0 << EOD
1 3106.91 3055.75 3158.07
2 1565.45 1509.04 1621.86
4 886.071 795.648 976.493
8 552.65 523.958 581.342
EOD
$E1 << EOD
1 1947.42 1874.75 2020.09
2 1219.74 1161.84 1277.63
4 912.279 818.087 1006.47
8 767.946 707.64 828.251
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
