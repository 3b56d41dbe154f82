# PP-OCR for the OCR crate: ONNX Runtime's shared library and the PaddleOCR detector and
# recogniser, taken from PyPI wheels (nothing else is downloaded). Sourced, not run:
#
#   source scripts/ppocr.sh && ensure_ppocr || exit 1
#
# exports MEND_ORT_DYLIB (absolute path of libonnxruntime.so.1.31.1, for ort's load-dynamic) and
# MEND_PPOCR_DIR (a folder with det.onnx, rec.onnx, cls.onnx and VERSION). The recogniser's
# dictionary is in rec.onnx's metadata (key "character"). MEND_PPOCR_MODELS picks the models:
# v6 (default; PP-OCRv6 small, from rapidocr 3.10.0) or v4 (PP-OCRv4 mobile, from
# rapidocr-onnxruntime 1.4.4). Everything lives in ~/.cache/mend/ppocr (MEND_PPOCR_HOME): a second
# call finds it there and returns at once, silently. A failed call prints why and returns 1.

PPOCR_ORT_VERSION="1.31.1"
PPOCR_ORT_SHA256="fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3"

# name: pip requirement | file in its wheel for det, rec, cls | their sha256
_ppocr_models() {
    case "$1" in
        v6)
            PPOCR_WHEEL="rapidocr==3.10.0"
            PPOCR_LABEL="PP-OCRv6 small (det, rec), ch_ppocr_mobile_v2.0 (cls), from rapidocr 3.10.0"
            PPOCR_FILES=(rapidocr/models/PP-OCRv6_det_small.onnx
                rapidocr/models/PP-OCRv6_rec_small.onnx
                rapidocr/models/ch_ppocr_mobile_v2.0_cls_mobile.onnx)
            PPOCR_SUMS=(090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f
                6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884
                e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c)
            ;;
        v4)
            PPOCR_WHEEL="rapidocr-onnxruntime==1.4.4"
            PPOCR_LABEL="PP-OCRv4 mobile (det, rec), ch_ppocr_mobile_v2.0 (cls), from rapidocr-onnxruntime 1.4.4"
            PPOCR_FILES=(rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx
                rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx
                rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx)
            PPOCR_SUMS=(d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9
                48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b
                e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c)
            ;;
        *) return 1 ;;
    esac
}

_ppocr_err() { echo "error: ensure_ppocr: $*" >&2; }

# The sha256 of file $1 is $2.
_ppocr_sum_ok() { [[ -f "$1" && "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]; }

# Download one wheel (requirement $1) into folder $2 with Debian's pip, for CPython 3.11 on
# manylinux x86_64 whatever python runs it, so the same file comes every time. Log to $3.
_ppocr_pip_download() {
    /usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: \
        --disable-pip-version-check --no-input \
        --python-version 3.11 --implementation cp --platform manylinux_2_28_x86_64 \
        --dest "$2" "$1" >>"$3" 2>&1
}

# Extract member $2 of zip $1 to file $3.
_ppocr_unzip() {
    /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
}

ensure_ppocr() {
    local home="${MEND_PPOCR_HOME:-$HOME/.cache/mend/ppocr}"
    local which="${MEND_PPOCR_MODELS:-v6}"
    local PPOCR_WHEEL PPOCR_LABEL PPOCR_FILES PPOCR_SUMS
    _ppocr_models "$which" || { _ppocr_err "MEND_PPOCR_MODELS is '$which'; it must be v6 or v4"; return 1; }

    local ort_dir="$home/onnxruntime-$PPOCR_ORT_VERSION"
    local lib="$ort_dir/libonnxruntime.so.$PPOCR_ORT_VERSION"
    local models="$home/models-$which"
    local version_line="$PPOCR_LABEL"

    # Fast path: both installed (VERSION is written last, so its presence means complete).
    if [[ -f "$lib" && -f "$models/VERSION" && "$(head -n1 "$models/VERSION")" == "$version_line" \
        && -f "$models/det.onnx" && -f "$models/rec.onnx" ]]; then
        export MEND_ORT_DYLIB="$lib" MEND_PPOCR_DIR="$models"
        return 0
    fi

    # One installer at a time (parallel test processes may call this together); one that waited
    # finds the files in place, checks their sha256 and downloads nothing.
    mkdir -p "$home" || { _ppocr_err "cannot create $home"; return 1; }
    local lock_fd rc
    exec {lock_fd}>"$home/.lock" || { _ppocr_err "cannot open $home/.lock"; return 1; }
    if ! flock -w 900 "$lock_fd"; then
        exec {lock_fd}>&-
        _ppocr_err "another ensure_ppocr held $home/.lock for 15 minutes"
        return 1
    fi
    _ppocr_install "$home" "$which"
    rc=$?
    exec {lock_fd}>&-
    ((rc == 0)) && export MEND_ORT_DYLIB="$lib" MEND_PPOCR_DIR="$models"
    return "$rc"
}

_ppocr_install() {
    local home="$1" which="$2"
    local PPOCR_WHEEL PPOCR_LABEL PPOCR_FILES PPOCR_SUMS
    _ppocr_models "$which" || return 1
    local ort_dir="$home/onnxruntime-$PPOCR_ORT_VERSION"
    local lib="$ort_dir/libonnxruntime.so.$PPOCR_ORT_VERSION"
    local models="$home/models-$which"
    local names=(det.onnx rec.onnx cls.onnx)
    local version_line="$PPOCR_LABEL"

    if [[ "$(uname -m)" != x86_64 ]]; then
        _ppocr_err "the pinned ONNX Runtime wheel is for x86_64 Linux; this machine is $(uname -m)"
        return 1
    fi
    if ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
        _ppocr_err "Debian's pip is missing (apt-get install python3-pip)"
        return 1
    fi
    local tmp log
    tmp="$(mktemp -d "$home/.install.XXXXXX")" || { _ppocr_err "cannot create a folder in $home"; return 1; }
    log="$tmp/pip.log"

    if ! _ppocr_sum_ok "$lib" "$PPOCR_ORT_SHA256"; then
        if ! _ppocr_pip_download "onnxruntime==$PPOCR_ORT_VERSION" "$tmp/whl" "$log"; then
            _ppocr_err "pip could not download onnxruntime==$PPOCR_ORT_VERSION from PyPI:"
            tail -n 5 "$log" >&2
            rm -rf "$tmp"
            return 1
        fi
        local whl
        whl="$(ls "$tmp"/whl/onnxruntime-"$PPOCR_ORT_VERSION"-*.whl 2>/dev/null | head -n1)"
        mkdir -p "$tmp/ort"
        if [[ -z "$whl" ]] || ! _ppocr_unzip "$whl" "onnxruntime/capi/libonnxruntime.so.$PPOCR_ORT_VERSION" \
            "$tmp/ort/libonnxruntime.so.$PPOCR_ORT_VERSION" 2>>"$log"; then
            _ppocr_err "no libonnxruntime.so.$PPOCR_ORT_VERSION in the onnxruntime wheel (see $log)"
            return 1
        fi
        if ! _ppocr_sum_ok "$tmp/ort/libonnxruntime.so.$PPOCR_ORT_VERSION" "$PPOCR_ORT_SHA256"; then
            _ppocr_err "libonnxruntime.so.$PPOCR_ORT_VERSION from PyPI does not have the pinned sha256"
            rm -rf "$tmp"
            return 1
        fi
        chmod 755 "$tmp/ort/libonnxruntime.so.$PPOCR_ORT_VERSION"
        rm -rf "$ort_dir" && mv "$tmp/ort" "$ort_dir" || { _ppocr_err "cannot write $ort_dir"; return 1; }
    fi

    local i ok=1
    for i in 0 1 2; do
        _ppocr_sum_ok "$models/${names[$i]}" "${PPOCR_SUMS[$i]}" || ok=0
    done
    if ((!ok)) || [[ "$(head -n1 "$models/VERSION" 2>/dev/null)" != "$version_line" ]]; then
        if ! _ppocr_pip_download "$PPOCR_WHEEL" "$tmp/whl" "$log"; then
            _ppocr_err "pip could not download $PPOCR_WHEEL from PyPI:"
            tail -n 5 "$log" >&2
            rm -rf "$tmp"
            return 1
        fi
        local mwhl
        mwhl="$(ls "$tmp"/whl/"$(echo "${PPOCR_WHEEL%%==*}" | tr - _)"-*.whl 2>/dev/null | head -n1)"
        mkdir -p "$tmp/models"
        for i in 0 1 2; do
            if [[ -z "$mwhl" ]] || ! _ppocr_unzip "$mwhl" "${PPOCR_FILES[$i]}" "$tmp/models/${names[$i]}" 2>>"$log"; then
                _ppocr_err "no ${PPOCR_FILES[$i]} in the $PPOCR_WHEEL wheel (see $log)"
                return 1
            fi
            if ! _ppocr_sum_ok "$tmp/models/${names[$i]}" "${PPOCR_SUMS[$i]}"; then
                _ppocr_err "${PPOCR_FILES[$i]} from $PPOCR_WHEEL does not have the pinned sha256"
                rm -rf "$tmp"
                return 1
            fi
        done
        {
            echo "$version_line"
            for i in 0 1 2; do echo "${names[$i]} = ${PPOCR_FILES[$i]} (pip: $PPOCR_WHEEL) sha256 ${PPOCR_SUMS[$i]}"; done
            echo "runtime = onnxruntime $PPOCR_ORT_VERSION ($lib)"
        } >"$tmp/models/VERSION.part"
        rm -rf "$models" && mv "$tmp/models" "$models" && mv "$models/VERSION.part" "$models/VERSION" \
            || { _ppocr_err "cannot write $models"; return 1; }
    fi
    rm -rf "$tmp"
}
