<?php
$data = stream_get_contents(STDIN);
$first = explode("\n", $data)[0];
$w = preg_split('/\s+/', trim($first), -1, PREG_SPLIT_NO_EMPTY);
echo implode(' ', array_reverse($w)), "\n";
