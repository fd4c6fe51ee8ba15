set -u
dir=$(mktemp -d /tmp/fbx-st-XXXX)
git ls-files -z | (cd /work/main && xargs -0 cp --parents -t $dir)
ln -s /work/main/node_modules $dir/node_modules
mkdir -p $dir/.farebox && ln -s /work/main/.farebox/bin $dir/.farebox/bin && ln -s /work/main/.farebox/wine $dir/.farebox/wine
cd $dir
PORT=38123 FAREBOX_SERVICES=local setsid npm start > $dir/out.log 2>&1 &
pid=$!
for i in $(seq 1 600); do curl -sf localhost:38123/readyz >/dev/null && break; sleep 0.2; done
echo "up after $i polls"
sleep 2
t=$(date +%s.%N)
kill -TERM -- -$pid
while kill -0 $pid 2>/dev/null || pgrep -f "$dir" >/dev/null; do sleep 0.1; done
echo "gone after $(echo "$(date +%s.%N) - $t" | bc)"
tail -30 $dir/out.log
