<?php
$data = stream_get_contents(STDIN);
$lines = array_values(array_filter(explode("\n", $data), function ($x) { return trim($x) !== ''; }));
function str_arg($line) {
    $a = strpos($line, '"');
    $b = strrpos($line, '"');
    if ($a === false || $b === false || $b <= $a) return '';
    return substr($line, $a + 1, $b - $a - 1);
}
$a = str_arg($lines[0]); $b = str_arg($lines[1]);
$n = strlen($a); $m = strlen($b);
$prev = range(0, $m);
$cur = array_fill(0, $m + 1, 0);
for ($i = 1; $i <= $n; $i++) {
    $cur[0] = $i;
    $ai = $a[$i - 1];
    for ($j = 1; $j <= $m; $j++) {
        $best = $prev[$j - 1] + ($ai === $b[$j - 1] ? 0 : 1);
        $x = $prev[$j] + 1; if ($x < $best) $best = $x;
        $x = $cur[$j - 1] + 1; if ($x < $best) $best = $x;
        $cur[$j] = $best;
    }
    $tmp = $prev; $prev = $cur; $cur = $tmp;
}
echo $prev[$m], "\n";
