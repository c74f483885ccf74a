// A tiny assembler for classic BPF as seccomp runs it: loads from struct seccomp_data,
// conditional jumps to named labels, returns. Labels are resolved when the program is
// assembled, so the filter's blocks can be written in order without counting instructions.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace seccomp_launcher {

class BpfProgram {
 public:
  using Label = int;
  static constexpr Label kNext = -1;  // fall through to the next instruction

  Label new_label() {
    label_at_.push_back(-1);
    return static_cast<Label>(label_at_.size() - 1);
  }
  // The label names the instruction emitted next.
  void bind(Label label) { label_at_.at(label) = static_cast<int>(code_.size()); }

  // A = 32-bit word at `offset` of struct seccomp_data.
  void load(uint32_t offset) { emit(BPF_LD | BPF_W | BPF_ABS, offset, kNext, kNext); }
  // if (A == k) goto if_true else goto if_false.
  void jump_if_equal(uint32_t k, Label if_true, Label if_false) {
    emit(BPF_JMP | BPF_JEQ | BPF_K, k, if_true, if_false);
  }
  // if (A & k) goto if_true else goto if_false.
  void jump_if_any_bit(uint32_t k, Label if_true, Label if_false) {
    emit(BPF_JMP | BPF_JSET | BPF_K, k, if_true, if_false);
  }
  void ret(uint32_t action) { emit(BPF_RET | BPF_K, action, kNext, kNext); }

  // The instructions with every jump resolved; throws when a label is unbound or a jump is
  // longer than classic BPF's 8-bit offsets allow.
  std::vector<sock_filter> assemble() const {
    std::vector<sock_filter> out;
    for (size_t i = 0; i < code_.size(); ++i) {
      const Instruction& in = code_[i];
      out.push_back(sock_filter{in.code, offset(i, in.if_true), offset(i, in.if_false), in.k});
    }
    return out;
  }

 private:
  struct Instruction {
    uint16_t code;
    uint32_t k;
    Label if_true, if_false;
  };
  void emit(uint16_t code, uint32_t k, Label if_true, Label if_false) {
    code_.push_back(Instruction{code, k, if_true, if_false});
  }
  uint8_t offset(size_t from, Label to) const {
    if (to == kNext) return 0;
    const int at = label_at_.at(to);
    const int jump = at - static_cast<int>(from) - 1;  // jumps count from the next instruction
    if (at < 0 || jump < 0 || jump > 255) {
      throw std::logic_error("BPF label " + std::to_string(to) + " is unbound or out of reach");
    }
    return static_cast<uint8_t>(jump);
  }
  std::vector<Instruction> code_;
  std::vector<int> label_at_;
};

}  // namespace seccomp_launcher
