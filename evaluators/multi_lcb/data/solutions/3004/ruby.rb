lines = STDIN.read.split("\n").map(&:strip).reject(&:empty?)
def str_arg(line)
  a = line.index('"')
  b = line.rindex('"')
  a && b && b > a ? line[(a + 1)...b] : ''
end
s = lines.empty? ? '' : str_arg(lines[0])
pair = { ')' => '(', ']' => '[', '}' => '{' }
st = []
ok = true
s.each_char do |ch|
  if ch == '(' || ch == '[' || ch == '{'
    st << ch
  elsif pair.key?(ch)
    if st.empty? || st.pop != pair[ch]
      ok = false
      break
    end
  end
end
ok = false unless st.empty?
puts ok ? 'true' : 'false'
