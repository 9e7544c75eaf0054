# Guest images for Hercules (issue 13), included from the Makefile.
#
#   make guests   both images:
#                 build/guests/frameprog.bin, the standalone s390 frame program, and
#                 build/guests/frameprog.ins.template, the IPL list a guest's .ins is
#                 written from (guests/README.md). Built once; rebuilt only when a source
#                 under guests/frameprog/ changes.
#   make guests-linux   the Debian s390x Linux guest (IPL LINUX): build/guests/linux-*
#                 (kernel, initrd and its address and size), linux.ins.template and
#                 linux.manifest.txt, made by guests/linux/build.sh from Debian's s390x
#                 packages, which are downloaded once into build/guests/debs/. Rebuilt
#                 only when a file under guests/linux/ changes.
#
# The program is cross-compiled for ESA/390 with Debian's gcc-s390x-linux-gnu (make deps
# installs it); nothing s390x is installed on the host. Its sources sit below guests/,
# which is not a MODULE, so the host build never compiles them.

GUEST_CC    ?= s390x-linux-gnu-gcc
GUEST_OBJCOPY ?= s390x-linux-gnu-objcopy
GUEST_OUT   := $(BUILD)/guests
FP_DIR      := guests/frameprog
FP_SRCS     := $(wildcard $(FP_DIR)/*.c) $(FP_DIR)/start.S
FP_OBJS     := $(patsubst $(FP_DIR)/%,$(GUEST_OUT)/obj/%.o,$(FP_SRCS))
FP_CFLAGS   := -m31 -mesa -march=z900 -std=c11 -O2 -g -ffreestanding -fno-builtin -nostdlib \
               -fno-pic -fno-pie -fno-stack-protector -fno-asynchronous-unwind-tables \
               -fno-tree-loop-distribute-patterns \
               -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -MMD -MP
FP_LDFLAGS  := -m31 -nostdlib -static -no-pie -Wl,-T,$(FP_DIR)/frameprog.ld \
               -Wl,--build-id=none -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments

.PHONY: guests guests-linux
guests: $(GUEST_OUT)/frameprog.bin $(GUEST_OUT)/frameprog.ins.template guests-linux

LINUX_SRCS  := $(wildcard guests/linux/*)
guests-linux: $(GUEST_OUT)/linux.manifest.txt

# build.sh writes linux.manifest.txt last, so it stands for the whole image.
$(GUEST_OUT)/linux.manifest.txt: $(LINUX_SRCS) guests/guests.mk
	@guests/linux/build.sh $(GUEST_OUT) $(GUEST_OUT)/debs

$(GUEST_OUT)/obj/%.o: $(FP_DIR)/% | guest-cc
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(FP_CFLAGS) -c $< -o $@

$(GUEST_OUT)/frameprog.elf: $(FP_OBJS) $(FP_DIR)/frameprog.ld
	$(GUEST_CC) $(FP_LDFLAGS) -o $@ $(FP_OBJS)

$(GUEST_OUT)/frameprog.bin: $(GUEST_OUT)/frameprog.elf $(FP_DIR)/mktrailer.sh
	$(GUEST_OBJCOPY) -O binary $< $@.raw
	$(FP_DIR)/mktrailer.sh $@.raw $@
	@rm -f $@.raw

$(GUEST_OUT)/frameprog.ins.template: guests/guests.mk
	@mkdir -p $(dir $@)
	@printf '%s\n' '* zvswitch frame program: the image at 0, its parameter block at 0x100000' \
	  '@IMAGE@ 0x00000000' '@PARAMS@ 0x00100000' > $@

.PHONY: guest-cc
guest-cc:
	@command -v $(GUEST_CC) >/dev/null || { echo "guests: no $(GUEST_CC): run 'make deps' as root" >&2; exit 1; }

-include $(FP_OBJS:.o=.d)
